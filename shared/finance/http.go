package finance

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// View is a row as the dashboard sees it: camelCase, absent values as null, and never the
// lease token.
type View struct {
	ID             string          `json:"id"`
	ERPID          *string         `json:"erpId"`
	Status         Status          `json:"status"`
	Entity         string          `json:"entity"`
	Amount         string          `json:"amount"`
	Currency       string          `json:"currency"`
	Vendor         string          `json:"vendor"`
	Description    string          `json:"description"`
	RequestedBy    string          `json:"requestedBy"`
	Fields         json.RawMessage `json:"fields"`
	LeaseExpiresAt *time.Time      `json:"leaseExpiresAt"`
	LastError      *string         `json:"lastError"`
	ERPAppliedAt   *time.Time      `json:"erpAppliedAt"`
	DecidedBy      *string         `json:"decidedBy"`
	DecidedAt      *time.Time      `json:"decidedAt"`
	Note           *string         `json:"note"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
	// OwnRequest says the viewer requested this approval (four eyes: another approver
	// approves it), so the console says so instead of offering Approve.
	OwnRequest bool `json:"ownRequest,omitempty"`
}

// viewFor is a's view for the viewer who.
func viewFor(who identity.Identity, a Approval) View {
	v := ViewOf(a)
	v.OwnRequest = who.Is(a.RequestedBy)
	return v
}

// ViewOf returns the view of a.
func ViewOf(a Approval) View {
	v := View{ID: a.ID, Status: a.Status, Entity: a.Entity, Amount: a.Amount, Currency: a.Currency, Vendor: a.Vendor,
		Description: a.Description, RequestedBy: a.RequestedBy, Fields: a.Fields, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		ERPID: optional(a.ERPID), LastError: optional(a.LastError), DecidedBy: optional(a.DecidedBy), Note: optional(a.Note)}
	if len(v.Fields) == 0 {
		v.Fields = DefaultFields
	}
	if !a.AppliedAt.IsZero() {
		at := a.AppliedAt
		v.ERPAppliedAt = &at
	}
	if a.Lease != nil {
		exp := a.Lease.ExpiresAt
		v.LeaseExpiresAt = &exp
	}
	if !a.DecidedAt.IsZero() {
		at := a.DecidedAt
		v.DecidedAt = &at
	}
	return v
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Listing limits.
const (
	DefaultListLimit = 25
	MaxListLimit     = 100
)

// CodeOwnRequest is the problem code of an approve by the approval's requester (four eyes),
// the same code governance answers a self-release with.
const CodeOwnRequest = "four_eyes"

// CodeConfirmationRequired is the problem code of an unconfirmed approve above the
// tenant's finance_ops.confirm_above.
const CodeConfirmationRequired = "confirmation_required"

// maxDecisionBody bounds the body of approve and reject.
const maxDecisionBody = 16 << 10

// featureOn answers 403 feature_disabled (503 when the settings cannot be read) and
// returns false when finance approvals are switched off for the tenant.
func (s *Service) featureOn(w http.ResponseWriter, r *http.Request, tenantID string) bool {
	_, ok := s.settings(w, r, tenantID)
	return ok
}

// settings is featureOn that also returns the tenant's configuration (the zero Config,
// with every default, when s.Tenants is nil).
func (s *Service) settings(w http.ResponseWriter, r *http.Request, tenantID string) (tenant.Config, bool) {
	if s.Tenants == nil {
		return tenant.Config{}, true
	}
	cfg, err := s.Tenants.Get(r.Context(), tenantID)
	switch {
	case err != nil && !errors.Is(err, tenant.ErrNotFound):
		httpapi.WriteUnavailable(w, r, err, "The tenant's settings could not be read; nothing was changed. Retry shortly.")
		return cfg, false
	case err != nil || !cfg.FinanceEnabled():
		writeFeatureDisabled(w, r)
		return cfg, false
	}
	return cfg, true
}

func writeFeatureDisabled(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, "feature_disabled",
		"Finance approvals are off for this tenant ("+tenant.KeyFinanceEnabled+" is 'false'); nothing was changed."))
}

func who(w http.ResponseWriter, r *http.Request) (identity.Identity, bool) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, "unauthenticated", "Sign in to use finance approvals."))
		return identity.Identity{}, false
	}
	return id, true
}

// ListHandler serves GET /api/finance-ops/approvals?status=&limit=&cursor= (operator):
// the tenant's rows in one status (default pending), newest first,
// {"items": [...], "nextCursor": string|null}.
func (s *Service) ListHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := who(w, r)
		if !ok || !s.featureOn(w, r, id.TenantID) {
			return
		}
		q, ok := httpapi.ParseList(w, r, httpapi.ListSpec{DefaultLimit: DefaultListLimit, MaxLimit: MaxListLimit,
			Statuses: statusNames})
		if !ok {
			return
		}
		page, err := s.Store.List(r.Context(), id.TenantID, Status(q.Status), q.Limit, q.Cursor)
		if errors.Is(err, ErrBadCursor) {
			httpapi.WriteBadCursor(w, r)
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "Finance approvals are unavailable; retry shortly.")
			return
		}
		items := make([]View, 0, len(page.Approvals))
		for _, a := range page.Approvals {
			items = append(items, viewFor(id, a))
		}
		httpapi.WriteList(w, items, page.NextCursor)
	})
}

// DetailHandler serves GET /api/finance-ops/approvals/{id} (operator).
func (s *Service) DetailHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := who(w, r)
		if !ok || !s.featureOn(w, r, id.TenantID) {
			return
		}
		approvalID := r.PathValue("id")
		if !ValidID(approvalID) {
			s.writeError(w, r, ErrInvalidID, Approval{})
			return
		}
		a, err := s.Store.Get(r.Context(), id.TenantID, approvalID)
		if err != nil {
			s.writeError(w, r, err, Approval{})
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, viewFor(id, a))
	})
}

// WrittenView is the 202 answer of an approve whose ERP update went through but could not
// be recorded: the row, applying and marked applied, and what happens next.
type WrittenView struct {
	View
	Message string `json:"message"`
}

// ApproveHandler serves POST /api/finance-ops/approvals/{id}/approve (approver). An
// optional body {"confirm": true} confirms an amount above the tenant's
// finance_ops.confirm_above, which is otherwise refused with 428 confirmation_required
// (naming amount, currency and threshold) before anything changes. 200 with the accepted
// row, 202 when the ERP was updated but the approval could not yet be recorded, or a
// problem (see the package documentation).
func (s *Service) ApproveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := who(w, r)
		if !ok {
			return
		}
		var body struct {
			Confirm bool `json:"confirm"`
		}
		if !readDecision(w, r, &body, `The body must be {"confirm": true} or empty.`, true) {
			return
		}
		cfg, ok := s.settings(w, r, actor.TenantID)
		if !ok {
			return
		}
		limit := cfg.FinanceConfirmAbove()
		if body.Confirm {
			limit = nil
		}
		a, err := s.Approve(r.Context(), actor, r.PathValue("id"), limit)
		if errors.Is(err, ErrConfirmationRequired) {
			threshold := cfg.FinanceConfirmAbove().FloatString(2)
			p := httpapi.NewProblem(http.StatusPreconditionRequired, CodeConfirmationRequired, "Approving "+a.Amount+" "+a.Currency+
				" is above this tenant's confirmation threshold of "+threshold+
				`; send {"confirm": true} to approve it. Nothing was changed.`)
			writeConfirmation(w, r, p, threshold, a)
			return
		}
		var f *ApproveError
		if errors.As(err, &f) && f.Cause == CauseCompletionPending {
			// The ERP was updated; the approval is completed by the next approve or the sweep.
			httpapi.WriteJSON(w, http.StatusAccepted, WrittenView{View: ViewOf(a),
				Message: "The ERP was updated; recording the approval failed and is completed by the lease sweep."})
			return
		}
		if err != nil {
			s.writeError(w, r, err, a)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, ViewOf(a))
	})
}

// RejectHandler serves POST /api/finance-ops/approvals/{id}/reject (approver): an
// optional body {"reason"} of at most 1000 characters; 200 with the rejected row.
func (s *Service) RejectHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := who(w, r)
		if !ok || !s.featureOn(w, r, actor.TenantID) {
			return
		}
		var body struct {
			Reason string `json:"reason"`
		}
		if !readDecision(w, r, &body, `The body must be {"reason": "..."} or empty.`, false) {
			return
		}
		reason := strings.TrimSpace(body.Reason)
		if utf8.RuneCountInString(reason) > 1000 || hasControl(reason) {
			httpapi.WriteInvalidBody(w, r, "", []httpapi.FieldError{{Field: "reason", Message: "must be at most 1000 characters without control characters"}})
			return
		}
		a, err := s.Reject(r.Context(), actor, r.PathValue("id"), reason)
		if err != nil {
			s.writeError(w, r, err, a)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, ViewOf(a))
	})
}

// readDecision reads the optional JSON body of approve or reject into body; false when it
// answered a problem (too large, or not the shape want describes). closed refuses a member
// body does not name (the decoder's DisallowUnknownFields, as every closed body here): the
// approve's body is closed, so a misspelt confirm is refused rather than read as no
// confirmation.
func readDecision(w http.ResponseWriter, r *http.Request, body any, want string, closed bool) bool {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDecisionBody))
	if err != nil {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large", "The body exceeds 16 KiB."))
		return false
	}
	text := strings.TrimSpace(string(raw))
	if text == "" {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if closed {
		dec.DisallowUnknownFields()
	}
	// JSON null decodes into a struct as nothing at all: refused, not taken for no body.
	err = dec.Decode(body)
	if name, ok := strings.CutPrefix(errString(err), "json: unknown field "); ok {
		httpapi.WriteInvalidBody(w, r, want, []httpapi.FieldError{{Field: strings.Trim(name, `"`), Message: "is not a member of this body"}})
		return false
	}
	if text == "null" || err != nil || dec.InputOffset() != int64(len(text)) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json", want))
		return false
	}
	return true
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// writeError is the one place the package's errors become problems.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error, cur Approval) {
	var f *ApproveError
	if errors.As(err, &f) {
		httpapi.WriteProblem(w, r, failureProblem(f))
		return
	}
	var p *httpapi.Problem
	switch {
	case errors.Is(err, ErrInvalidID):
		p = httpapi.NewProblem(http.StatusBadRequest, "invalid_id", "An approval id is 1 to 64 letters, digits, '.', '_', ':' or '-'.")
	case errors.Is(err, ErrNotFound):
		p = httpapi.NewProblem(http.StatusNotFound, "not_found", "No such finance approval.")
	case errors.Is(err, ErrNotPending):
		p = httpapi.NewProblem(http.StatusConflict, "not_pending", "The approval is "+string(cur.Status)+", not pending.")
	case errors.Is(err, ErrLeaseHeld) && !cur.AppliedAt.IsZero():
		p = httpapi.NewProblem(http.StatusConflict, "erp_applied", "The ERP was updated at "+cur.AppliedAt.Format(time.RFC3339)+
			"; the approval is being completed and can no longer be rejected.")
	case errors.Is(err, ErrLeaseHeld):
		p = leaseHeld(cur, s.now())
	case errors.Is(err, ErrOwnRequest):
		p = httpapi.NewProblem(http.StatusForbidden, CodeOwnRequest,
			"You requested this approval; another approver must approve it. Nothing was changed.")
	case errors.Is(err, ErrIDReused):
		p = httpapi.NewProblem(http.StatusConflict, "approval_id_reused",
			"This approvalId already names a different approval of the tenant; nothing was changed.")
	default:
		httpapi.WriteUnavailable(w, r, err, "Finance approvals are unavailable; nothing was changed. Retry shortly.")
		return
	}
	httpapi.WriteProblem(w, r, p)
}

// failureProblem maps an approve's failure to its documented status and code.
func failureProblem(f *ApproveError) *httpapi.Problem {
	const again = " The approval is pending again."
	var p *httpapi.Problem
	switch f.Cause {
	case CauseMissingERPID:
		p = httpapi.NewProblem(http.StatusBadRequest, "missing_erp_id", "The approval names no ERP record to update."+again)
	case CauseNotConfigured:
		p = httpapi.NewProblem(http.StatusServiceUnavailable, "connector_not_configured",
			"The tenant has no host ERP connector; nothing was written."+again)
	case CauseUnavailable:
		p = httpapi.NewProblem(http.StatusServiceUnavailable, "connector_unavailable",
			"A governance check or the host ERP connector is unavailable; nothing was written. Retry shortly.")
		// A write the account's rate budget had no room for may ask again when it has.
		p.RetryAfter = max(5*time.Second, (delivery.Deferred(f.Err) + time.Second - 1).Truncate(time.Second))
	case CauseRefused:
		p = httpapi.NewProblem(http.StatusConflict, f.Refusal.Code, "Governance refused the ERP update: "+f.Refusal.Reason+"."+again)
	case CauseReturnedNothing:
		p = httpapi.NewProblem(http.StatusBadGateway, "erp_returned_nothing",
			"The host ERP answered without confirming the record."+again)
	case CauseOutcomeUnknown:
		return httpapi.NewProblem(http.StatusBadGateway, "erp_outcome_unknown",
			"The host ERP may have applied the update, and whether it did could not be read yet. The approval stays applying "+
				"(it cannot be rejected) until the lease sweep reads the ERP record: accepted if the update landed, pending otherwise.")
	case CauseEarlierOutcomeUnknown:
		p = httpapi.NewProblem(http.StatusServiceUnavailable, "outcome_unverified",
			"An earlier approve of this approval stopped before it finished and may have updated the ERP record; whether "+
				"it did cannot be read now (the write ledger or the ERP record is unavailable). Nothing was written. The "+
				"approval stays applying and cannot be rejected until the reconcile reads it: accepted if the update landed, "+
				"pending otherwise. If it cannot be read for 24 hours, or not at all (no connector, access denied), it returns "+
				"to pending with a note to check the ERP record before approving again.")
		p.RetryAfter = time.Minute
		return p
	case CauseChangedAfterWrite:
		p = httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The ERP was updated, but the approval changed meanwhile; see its current state.")
	default:
		p = httpapi.NewProblem(http.StatusBadGateway, "erp_update_failed", "The host ERP did not accept the update."+again)
	}
	if !f.Reverted && !f.Applied && f.Cause != CauseUnavailable {
		p.Detail = strings.TrimSuffix(p.Detail, again) + " The approval returns to pending when its lease expires."
	}
	return p
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// confirmationProblem is 428 confirmation_required with what the confirmation names: the
// threshold, the record and the values an approve writes to it.
type confirmationProblem struct {
	*httpapi.Problem
	Threshold string          `json:"threshold"`
	Amount    string          `json:"amount"`
	Currency  string          `json:"currency"`
	ERPID     string          `json:"erpId"`
	Entity    string          `json:"entity"`
	Fields    json.RawMessage `json:"fields"`
}

func writeConfirmation(w http.ResponseWriter, r *http.Request, p *httpapi.Problem, threshold string, a Approval) {
	p.CorrelationID = httpapi.CorrelationID(r.Context())
	v := ViewOf(a)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(confirmationProblem{Problem: p, Threshold: threshold, Amount: a.Amount, Currency: a.Currency,
		ERPID: a.ERPID, Entity: a.Entity, Fields: v.Fields})
}

// leaseHeld answers an approve or reject meeting another approve's lease. That approve may
// still be writing, or it ended without learning whether the ERP took the update (its
// approver was told so) and the lease keeps the row until the update cannot be on its way
// any more; either way the row is decided once the lease ends, so the answer says when and
// Retry-After lets a client wait for it rather than ask again every second.
func leaseHeld(cur Approval, now time.Time) *httpapi.Problem {
	if cur.Lease == nil {
		return httpapi.NewProblem(http.StatusConflict, "lease_held", "Another approve is applying this approval right now.")
	}
	until := cur.Lease.ExpiresAt
	p := httpapi.NewProblem(http.StatusConflict, "lease_held", "Another approve is applying this approval, or settling whether "+
		"the ERP took its update, until "+until.UTC().Format(time.RFC3339)+" at the latest. Nothing was changed; approve again after that.")
	p.RetryAfter = max(time.Second, until.Sub(now).Truncate(time.Second)+time.Second)
	return p
}
