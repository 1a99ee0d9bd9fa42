package finance

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// MaxCreateBody bounds the host's create request.
const MaxCreateBody = 64 << 10

// CreateRequest is the body of POST /api/finance-ops/approvals.
type CreateRequest struct {
	// TenantID is optional; when sent it must equal the X-Tenant-Id the body is signed for.
	TenantID   string `json:"tenantId,omitempty"`
	ApprovalID string `json:"approvalId"`
	ERPID      string `json:"erpId,omitempty"`
	Entity     string `json:"entity"`
	// Amount is a plain decimal; it may be sent as a JSON string or number, and is kept
	// as the text sent.
	Amount      string `json:"amount"`
	Currency    string `json:"currency"`
	Vendor      string `json:"vendor"`
	Description string `json:"description,omitempty"`
	RequestedBy string `json:"requestedBy,omitempty"`
	// Fields are the ERP fields to set on approve; DefaultFields when absent.
	Fields json.RawMessage `json:"fields,omitempty"`
}

// CreateResponse is the answer to a create: 201 for a new row, 200 with Duplicate for a
// redelivery.
type CreateResponse struct {
	ID        string `json:"id"`
	Status    Status `json:"status"`
	Duplicate bool   `json:"duplicate"`
}

var (
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
	entityPattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	erpIDPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
	fieldPattern    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]{0,63}$`)
)

// maxFields bounds how many ERP fields one approval may set.
const maxFields = 50

// wireCreate accepts amount as a JSON string or number: ERPs send both.
type wireCreate struct {
	CreateRequest
	Amount json.RawMessage `json:"amount"`
}

// ParseCreate decodes and validates a create body for tenantID. It returns the approval
// as it will be stored (without times), or the field errors.
func ParseCreate(tenantID string, body []byte) (Approval, []httpapi.FieldError, error) {
	var w wireCreate
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			field := strings.TrimPrefix(typ.Field, "CreateRequest.")
			return Approval{}, []httpapi.FieldError{{Field: field, Message: "has the wrong JSON type"}}, nil
		}
		return Approval{}, nil, err
	}
	req := w.CreateRequest
	var errs []httpapi.FieldError
	bad := func(field, msg string) { errs = append(errs, httpapi.FieldError{Field: field, Message: msg}) }
	if req.TenantID != "" && req.TenantID != tenantID {
		bad("tenantId", "must equal the X-Tenant-Id header")
	}
	if !ValidID(req.ApprovalID) {
		bad("approvalId", "is required: 1 to 64 letters, digits, '.', '_', ':' or '-', starting with a letter or digit")
	}
	if req.ERPID != "" && !erpIDPattern.MatchString(req.ERPID) {
		bad("erpId", "must be 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit")
	}
	if !entityPattern.MatchString(req.Entity) {
		bad("entity", "is required: an ERP record type such as vendorBill")
	}
	amount, ok := amountText(w.Amount)
	if !ok {
		bad("amount", "is required: a plain decimal with at most 15 integer and 4 fraction digits, as a number or a string")
	}
	if !currencyPattern.MatchString(req.Currency) {
		bad("currency", "is required: an ISO 4217 code such as EUR")
	}
	text := func(field, v string, required bool, max int) {
		switch n := utf8.RuneCountInString(strings.TrimSpace(v)); {
		case required && n == 0, n > max, hasControl(v):
			prefix := ""
			if required {
				prefix = "is required and "
			}
			bad(field, prefix+"must be at most "+strconv.Itoa(max)+" characters without control characters")
		}
	}
	text("vendor", req.Vendor, true, 200)
	text("description", req.Description, false, 2000)
	text("requestedBy", req.RequestedBy, false, 200)
	fields := DefaultFields
	if len(req.Fields) > 0 && string(req.Fields) != "null" {
		canonical, msg := canonicalFields(req.Fields)
		if msg != "" {
			bad("fields", msg)
		}
		if name, money, differs := amountFieldDiffers(canonical, amount); differs && ok {
			if money {
				bad("fields."+name, "may not be written by an approval's update: a price, cost, rate, quantity, discount, tax or fee "+
					"changes what the bill comes to, and the approver decides on amount alone")
			} else {
				bad("fields."+name, "must equal amount: the approver is shown amount, and the confirmation threshold is held to it")
			}
		}
		fields = canonical
	}
	if len(errs) > 0 {
		return Approval{}, errs, nil
	}
	return Approval{
		TenantID: tenantID, ID: req.ApprovalID, ERPID: req.ERPID, Entity: req.Entity, Amount: amount,
		Currency: req.Currency, Vendor: strings.TrimSpace(req.Vendor), Description: strings.TrimSpace(req.Description),
		RequestedBy: strings.TrimSpace(req.RequestedBy), Fields: fields, Status: StatusPending,
	}, nil, nil
}

func amountText(raw json.RawMessage) (string, bool) {
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
	}
	_, ok := tenant.ParseAmount(s)
	return s, ok
}

// amountFieldDiffers names the first field of fields (a JSON path such as
// "expense.items[0].amount") that writes an amount other than amount: the approver decides
// on amount, and the confirmation threshold is held to it, so the update may not write
// another one anywhere. An amount field is one, at any depth (objects and arrays alike),
// whose name (its last dotted part) contains "amount" in any case — NetSuite's amount,
// amountpaid and foreignamount, Business Central's totalAmountIncludingTax,
// totalAmountExcludingTax and discountAmount — or is total or usertotal (NetSuite's
// vendor bill totals). Its value must be a number, or a decimal string, equal to amount;
// anything else (another number, an object, an array, null) is refused. A money term's
// field (moneyName) is refused whatever its value; money says the field named is one.
func amountFieldDiffers(fields json.RawMessage, amount string) (name string, money, differs bool) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(fields))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return "", false, false
	}
	want, _ := tenant.ParseAmount(amount)
	return otherAmount(doc, "", want)
}

// otherAmount walks v (at path) for amountFieldDiffers.
func otherAmount(v any, path string, want *big.Rat) (string, bool, bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			at := k
			if path != "" {
				at = path + "." + k
			}
			if moneyName(k) {
				return at, true, true
			}
			if !amountName(k) {
				if name, money, differs := otherAmount(v[k], at, want); differs {
					return name, money, true
				}
				continue
			}
			var text string
			switch n := v[k].(type) {
			case json.Number:
				text = n.String()
			case string:
				text = n
			}
			if got, ok := tenant.ParseAmount(text); !ok || want == nil || got.Cmp(want) != 0 {
				return at, false, true
			}
		}
	case []any:
		for i, e := range v {
			if name, money, differs := otherAmount(e, path+"["+strconv.Itoa(i)+"]", want); differs {
				return name, money, true
			}
		}
	}
	return "", false, false
}

// amountName reports whether an ERP field name names an amount (see amountFieldDiffers).
func amountName(k string) bool {
	k = strings.ToLower(k[strings.LastIndex(k, ".")+1:])
	return strings.Contains(k, "amount") || k == "total" || k == "usertotal"
}

// moneyName reports whether the last part of a field name names something a bill's total
// or its meaning follows from, other than an amount (which must equal the approval's): a
// price, cost, rate or quantity, a discount, a tax or a fee, the currency. The name is read
// as words (split at separators, case changes and digits: directUnitCost, tax1amt,
// taxPercent), and NetSuite's one-word lower-case names are listed as it spells them
// (taxtotal, discountrate, grossamt); a cost center classifies a bill, it prices nothing.
func moneyName(k string) bool {
	k = k[strings.LastIndex(k, ".")+1:]
	if strings.Contains(strings.ToLower(k), "amount") {
		return false // an amount: amountFieldDiffers holds it to the approval's
	}
	words := fieldWords(k)
	if slices.Contains(words, "center") || slices.Contains(words, "centre") {
		return false
	}
	return slices.ContainsFunc(words, func(w string) bool { return moneyWords[w] })
}

// moneyWords are the words (and NetSuite's one-word names) moneyName refuses.
var moneyWords = map[string]bool{
	"price": true, "prices": true, "cost": true, "costs": true, "rate": true, "rates": true, "quantity": true, "qty": true,
	"discount": true, "tax": true, "taxes": true, "percent": true, "fee": true, "fees": true, "amt": true, "currency": true,
	"subtotal": true, "taxtotal": true, "discountrate": true, "discounttotal": true, "taxrate": true, "taxcode": true,
	"grossamt": true, "unitcost": true, "costestimate": true, "exchangerate": true, "unitprice": true, "taxpercent": true,
}

// fieldWords splits a field name into lower-case words at separators, at a lower-case
// letter followed by an upper-case one, and between letters and digits.
func fieldWords(k string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	var prev rune
	for _, r := range k {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case b.Len() > 0 && (unicode.IsUpper(r) && unicode.IsLower(prev) || unicode.IsDigit(r) != unicode.IsDigit(prev)):
			flush()
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	flush()
	return words
}

// canonicalFields validates a fields object and returns its compact form with sorted
// keys, so a redelivery compares equal and a replayed ERP update carries the same body.
func canonicalFields(raw json.RawMessage) (json.RawMessage, string) {
	const msg = "must be a JSON object of 1 to 50 ERP fields named with letters, digits, '_' and '.'"
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || len(m) == 0 || len(m) > maxFields {
		return nil, msg
	}
	for k := range m {
		if !fieldPattern.MatchString(k) {
			return nil, msg
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, msg
	}
	return out, ""
}

// CreateHandler serves POST /api/finance-ops/approvals for the host ERP, signed like the
// sync-error webhook (X-Tenant-Id, Standard Webhooks v1 headers). Body: CreateRequest.
// 201 {"id", "status": "pending", "duplicate": false}; a redelivery of the same request
// 200 with "duplicate": true and nothing changed; 409 approval_id_reused when the id names
// a different approval; 400 malformed_json or validation_failed; 401, 413 and 415 as on
// every host-signed route.
func (s *Service) CreateHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg, body, ok := s.HostAuth.ReadSigned(w, r, MaxCreateBody, tenant.Config.FinanceEnabled)
		if !ok {
			return
		}
		if !cfg.FinanceEnabled() {
			writeFeatureDisabled(w, r)
			return
		}
		a, errs, err := ParseCreate(cfg.ID, body)
		if err != nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json", "The body is not a JSON object."))
			return
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "", errs)
			return
		}
		now := s.now()
		a.CreatedAt, a.UpdatedAt = now, now
		host := identity.ForTenant(cfg.ID, "webhook:"+r.Header.Get(webhook.HeaderID))
		stored, created, err := s.Create(r.Context(), host, a)
		if err != nil {
			s.writeError(w, r, err, stored)
			return
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		httpapi.WriteJSON(w, status, CreateResponse{ID: stored.ID, Status: stored.Status, Duplicate: !created})
	})
}
