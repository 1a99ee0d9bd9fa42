package finance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

var msgSeq atomic.Int64

type signed struct {
	tenant, secret, contentType string
	at                          time.Time
	noSig                       bool
}

// create posts body to the create route signed as the host ERP would.
func (f *fixture) create(body string, s signed) *httptest.ResponseRecorder {
	if s.tenant == "" {
		s.tenant = tenantID
	}
	if s.secret == "" {
		s.secret = webhookSecret
	}
	if s.at.IsZero() {
		s.at = f.clock.Now()
	}
	if s.contentType == "" {
		s.contentType = "application/json"
	}
	r := httptest.NewRequest(http.MethodPost, base, strings.NewReader(body))
	r.Header.Set("Content-Type", s.contentType)
	r.Header.Set("X-Tenant-Id", s.tenant)
	if !s.noSig {
		key, err := webhook.ParseSecret(s.secret)
		if err != nil {
			f.t.Fatal(err)
		}
		webhook.Sign(key, fmt.Sprintf("msg_%d", msgSeq.Add(1)), s.at, []byte(body)).Set(r.Header)
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

const createBody = `{"approvalId":"FA-2026-0141","erpId":"VB-20431","entity":"vendorBill","amount":12480.00,
	"currency":"EUR","vendor":"Nordwind Logistik GmbH","description":"Q4 freight","requestedBy":"m.keller",
	"fields":{"paymentHold":false,"approvalStatus":"approved"}}`

func TestCreateAndRedelivery(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	w := f.create(createBody, signed{})
	if w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	var out finance.CreateResponse
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out != (finance.CreateResponse{ID: "FA-2026-0141", Status: "pending"}) {
		t.Fatalf("create answer %s", w.Body)
	}
	a := f.row("FA-2026-0141")
	if a.Amount != "12480.00" || a.Currency != "EUR" || a.ERPID != "VB-20431" || a.Status != finance.StatusPending ||
		string(a.Fields) != `{"approvalStatus":"approved","paymentHold":false}` || !a.CreatedAt.Equal(t0) {
		t.Fatalf("stored row %+v", a)
	}
	recs := f.auditsOf(finance.ActionCreate)
	if len(recs) != 1 || recs[0].TenantID != tenantID || !strings.HasPrefix(recs[0].Actor.Actor, "webhook:msg_") {
		t.Fatalf("finance.create records %+v", recs)
	}

	// The same request again, even reformatted and signed anew, is a duplicate.
	f.clock.Advance(time.Minute)
	again := strings.ReplaceAll(createBody, "\n\t", " ")
	w = f.create(again, signed{})
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &out) != nil || !out.Duplicate || out.ID != "FA-2026-0141" {
		t.Fatalf("redelivery: %d %s", w.Code, w.Body)
	}
	if f.mem.Len() != 1 || len(f.auditsOf(finance.ActionCreate)) != 1 || !f.row("FA-2026-0141").CreatedAt.Equal(t0) {
		t.Fatalf("the redelivery changed something: %d rows", f.mem.Len())
	}

	// A different approval under the same id changes nothing either, and says so.
	w = f.create(strings.Replace(createBody, "12480.00", "12840.00", 1), signed{})
	wantProblem(t, w, http.StatusConflict, "approval_id_reused")
	if f.row("FA-2026-0141").Amount != "12480.00" {
		t.Fatal("the conflicting request overwrote the row")
	}
}

func TestConcurrentRedeliveriesCreateOneRow(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	var created atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			w := f.create(createBody, signed{})
			switch w.Code {
			case http.StatusCreated:
				created.Add(1)
			case http.StatusOK:
			default:
				t.Errorf("%d %s", w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	if created.Load() != 1 || f.mem.Len() != 1 || len(f.auditsOf(finance.ActionCreate)) != 1 {
		t.Fatalf("created %d, rows %d", created.Load(), f.mem.Len())
	}
}

func TestCreateRefusals(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	cases := []struct {
		name   string
		body   string
		s      signed
		status int
		code   string
		field  string
	}{
		{"wrong secret", createBody, signed{secret: "whsec_c2VjcmV0LXRoYXQtaXMtbm90LXRoZS10ZW5hbnRz"}, 401, "invalid_signature", ""},
		{"unknown tenant", createBody, signed{tenant: "nobody"}, 401, "invalid_signature", ""},
		{"no signature", createBody, signed{noSig: true}, 401, "signature_missing", ""},
		{"stale timestamp", createBody, signed{at: t0.Add(-time.Hour)}, 401, "timestamp_out_of_tolerance", ""},
		{"not JSON", createBody, signed{contentType: "text/plain"}, 415, "unsupported_media_type", ""},
		{"malformed JSON", `{"approvalId":`, signed{}, 400, "malformed_json", ""},
		{"missing approvalId", `{"entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "approvalId"},
		{"approvalId with a slash", `{"approvalId":"FA/1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "approvalId"},
		{"amount in exponent form", `{"approvalId":"FA-1","entity":"vendorBill","amount":1e3,"currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "amount"},
		{"amount with five decimals", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00001","currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "amount"},
		{"currency in lower case", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"eur","vendor":"V"}`, signed{}, 400, "validation_failed", "currency"},
		{"no vendor", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"  "}`, signed{}, 400, "validation_failed", "vendor"},
		{"fields not an object", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":[1]}`, signed{}, 400, "validation_failed", "fields"},
		{"empty fields", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{}}`, signed{}, 400, "validation_failed", "fields"},
		{"erpId of the wrong type", `{"approvalId":"FA-1","erpId":42,"entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "erpId"},
		{"fields writing another amount", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","Amount":99999}}`, signed{}, 400, "validation_failed", "fields.Amount"},
		{"fields writing a dotted amount as text", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"total.amount":"1.5"}}`, signed{}, 400, "validation_failed", "fields.total.amount"},
		{"fields writing a nested total object", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","total":{"amount":99999}}}`, signed{}, 400, "validation_failed", "fields.total"},
		{"fields writing an amount in a sublist", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","expense":{"items":[{"account":"6100","amount":"1.00"},{"amount":99999}]}}}`, signed{}, 400, "validation_failed", "fields.expense.items[1].amount"},
		{"fields writing NetSuite's usertotal", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","usertotal":99999}}`, signed{}, 400, "validation_failed", "fields.usertotal"},
		{"fields writing Business Central's totalAmountIncludingTax", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","totalAmountIncludingTax":99999}}`, signed{}, 400, "validation_failed", "fields.totalAmountIncludingTax"},
		{"fields writing an amount-named field in any position", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","amountDue":99999}}`, signed{}, 400, "validation_failed", "fields.amountDue"},
		{"fields writing a line's rate", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","item":{"items":[{"rate":"1.00"}]}}}`, signed{}, 400, "validation_failed", "fields.item.items[0].rate"},
		{"fields writing Business Central's unitCost", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","directUnitCost":1}}`, signed{}, 400, "validation_failed", "fields.directUnitCost"},
		{"fields writing a quantity", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","quantity":3}}`, signed{}, 400, "validation_failed", "fields.quantity"},
		{"fields writing NetSuite's tax1amt", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","tax1amt":"0.19"}}`, signed{}, 400, "validation_failed", "fields.tax1amt"},
		{"fields writing the currency", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","currency":"USD"}}`, signed{}, 400, "validation_failed", "fields.currency"},
		{"fields writing NetSuite's taxtotal", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","taxtotal":"0.19"}}`, signed{}, 400, "validation_failed", "fields.taxtotal"},
		{"fields writing an amount cleared with null", `{"approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V","fields":{"approvalStatus":"approved","amount":null}}`, signed{}, 400, "validation_failed", "fields.amount"},
		{"body for another tenant", `{"tenantId":"globex","approvalId":"FA-1","entity":"vendorBill","amount":"1.00","currency":"EUR","vendor":"V"}`, signed{}, 400, "validation_failed", "tenantId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := f.create(tc.body, tc.s)
			wantProblem(t, w, tc.status, tc.code)
			if tc.field != "" && !strings.Contains(w.Body.String(), `"field":"`+tc.field+`"`) {
				t.Fatalf("no error for %s: %s", tc.field, w.Body)
			}
		})
	}
	if f.mem.Len() != 0 || len(f.audits.All()) != 0 {
		t.Fatalf("a refused create stored %d rows", f.mem.Len())
	}
}

func TestCreateWithoutERPIDAndDefaultFields(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	w := f.create(`{"approvalId":"FA-9","entity":"vendorBill","amount":"-250.5","currency":"USD","vendor":"Acme"}`, signed{})
	if w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	a := f.row("FA-9")
	if a.ERPID != "" || a.Amount != "-250.5" || string(a.Fields) != `{"approvalStatus":"approved"}` {
		t.Fatalf("row %+v", a)
	}
}

// An update may write the amount the approver decides on, in any spelling of it, and fields
// whose names only contain a money word's letters (corporate, syntax) or classify the bill
// (a cost center).
func TestCreateAcceptsFieldsWritingTheSameAmount(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	w := f.create(`{"approvalId":"FA-8","entity":"vendorBill","amount":"1250.5","currency":"EUR","vendor":"Acme",`+
		`"fields":{"approvalStatus":"approved","amount":1250.50,"bill.Amount":"1250.5000","expense":{"items":[{"amount":"1250.50"}]},"usertotal":1250.5,`+
		`"totalAmountIncludingTax":1250.5,"custbody_corporate":"yes","custbody_cost_center":"12","custbody_syntax":"v2","nextapprover":"7","memo":"ok"}}`, signed{})
	if w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// finance_ops.enabled "false" switches the tenant's finance approvals off: create, approve
// and reject answer 403 feature_disabled and change nothing, and the list and the detail
// answer it too (the queue of a feature that is off is not served).
func TestFinanceSwitchedOff(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	a := f.mustCreate("FA-1", "VB-1")
	f.svc.Tenants = f.tenants
	cfg, err := f.tenants.Get(context.Background(), tenantID)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Settings = map[string]string{tenant.KeyFinanceEnabled: "false"}
	if err := f.tenants.Update(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*httptest.ResponseRecorder{
		f.create(createBody, signed{}),
		f.approve(approverAlice, a.ID),
		f.call(approverAlice, http.MethodPost, base+"/"+a.ID+"/reject", ""),
		f.call(approverAlice, http.MethodGet, base, ""),
		f.call(approverAlice, http.MethodGet, base+"/"+a.ID, ""),
	} {
		wantProblem(t, w, http.StatusForbidden, "feature_disabled")
	}
	if got := f.row(a.ID); got.Status != finance.StatusPending || len(erp.Calls()) != 0 {
		t.Fatalf("row %+v, %d ERP calls", got, len(erp.Calls()))
	}
}

// The tenant's webhook (ingest) secret cannot create a finance approval: each host-signed
// route verifies with its own purpose's secret.
func TestCreateRefusesTheIngestSecret(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	w := f.create(createBody, signed{secret: ingestSecret})
	wantProblem(t, w, http.StatusUnauthorized, "invalid_signature")
	if _, err := f.mem.Get(context.Background(), tenantID, "FA-2026-0141"); err == nil {
		t.Fatal("a row was created")
	}
}
