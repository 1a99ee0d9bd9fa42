package syncerror

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// FixWriter writes an approved fix back to the host ERP through the governed write path.
// It returns a *RefusedError when governance refuses the write, an error wrapping
// ErrWriterNotConfigured when the tenant has no host ERP connector, and any other error
// when the write itself failed.
type FixWriter interface {
	WriteFix(ctx context.Context, who identity.Identity, c Claim, fix []FieldChange, idempotencyKey string) error
}

// ErrWriterNotConfigured means the tenant has no host ERP connector to write to.
var ErrWriterNotConfigured = errors.New("host ERP connector not configured")

// RefusedError is a governance refusal of a write-back: ownership, a loop, DLP, or a
// write held for an ownership approval. Code and Reason are fit for the operator.
type RefusedError struct {
	Status int
	Code   string
	Reason string
}

func (e *RefusedError) Error() string { return "write-back refused: " + e.Code + ": " + e.Reason }

// TargetError is a write-back the target system refused or failed: what it answered and
// a reason fit for the operator, which says whether approving again can help.
type TargetError struct {
	Target httpapi.TargetFailure
	Reason string
	Err    error
}

func (e *TargetError) Error() string { return "write-back failed: " + e.Reason + ": " + e.Err.Error() }

func (e *TargetError) Unwrap() error { return e.Err }

// Auditor writes audit records.
type Auditor interface {
	Write(ctx context.Context, e audit.Entry) error
}

// Operator serves the operator queue's reads (list, detail) and the approval policy's
// and knowledge's routes; the decisions on a row are decisions.Service, built on it.
// Authentication and roles are checked by middleware in front; the tenant always comes
// from the caller's identity, so another tenant's row is simply not found.
type Operator struct {
	Claims ClaimStore
	// Mask shows stored rows with their contact data masked (nil: as stored).
	Mask *Masker
	// Tenants holds the feature flags that approve, reject, escalate and bulk decisions
	// check; nil checks none.
	Tenants tenant.Reader
	Audit   Auditor
	Now     func() time.Time
	// Assist is the approval policy, learning and automation (nil: approvers approve).
	Assist *Assist
	// Fields types an approved fix by its target's metadata (nil: written as sent).
	Fields FieldCatalog
}

// Queue listing limits.
const (
	DefaultListLimit = 25
	MaxListLimit     = 100
)

// Summary is a row in the queue listing.
type Summary struct {
	ID         string    `json:"id"`
	ErrorID    string    `json:"errorId"`
	RecordType string    `json:"recordType"`
	RecordID   string    `json:"recordId"`
	ErrorCode  string    `json:"errorCode"`
	Message    string    `json:"message"`
	Status     Status    `json:"status"`
	Diagnosis  Diagnosis `json:"diagnosis"`
	Class      string    `json:"class,omitempty"`
	Confidence *float64  `json:"confidence,omitempty"`
	ClaimedAt  time.Time `json:"claimedAt"`
	// OccurredAt is when the error happened in its system (what the queue's Age counts
	// from); ExternalSystem is the system on the other side of the failed sync.
	OccurredAt     *time.Time `json:"occurredAt,omitempty"`
	ExternalSystem string     `json:"externalSystem,omitempty"`
	// System is the connector system ExternalSystem resolves to by the tenant's system
	// names ("erp2" for "Business Central"), else ExternalSystem itself (systems.go).
	System string `json:"system,omitempty"`
	// ApplyError is why the last write-back failed, on a row that is pending again: the
	// queue marks such rows apart from fresh ones.
	ApplyError string `json:"applyError,omitempty"`
	// Approval says, on a pending row, who may approve its fix and by which rule.
	Approval *Decision `json:"approval,omitempty"`
	// Decider says who can approve the fix, for the viewer (Decision.Decider): you,
	// approver or two_approvers; absent where nobody decides now.
	Decider string `json:"decider,omitempty"`
	// Escalation is, on an escalated row, the escalate that made it so: who, when, why.
	Escalation *HistoryEntry `json:"escalation,omitempty"`
	// Source is "learned" when the proposal comes from the tenant's knowledge.
	Source string `json:"source,omitempty"`
	RetryView
	TriageView
}

// Detail is one row as the operator sees it.
type Detail struct {
	Summary
	Error          Record         `json:"error"`
	Proposal       *ProposalView  `json:"proposal"`
	EditedFix      []FieldChange  `json:"editedFix,omitempty"`
	WritesTo       *WriteTarget   `json:"writesTo,omitempty"` // where an approve writes the fix ("Approve writes … to …")
	DiagnosisError string         `json:"diagnosisError,omitempty"`
	Applied        *AppliedWrite  `json:"applied,omitempty"`
	ApplyError     string         `json:"applyError,omitempty"`
	History        []HistoryEntry `json:"history"`
	// Attempts are the row's last retry attempts, oldest first, under its error as received.
	Attempts  []RetryAttempt `json:"attempts"`
	Notes     []Note         `json:"notes"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// ProposalView is the AI's proposal with its trace id.
type ProposalView struct {
	Proposal
	TraceID string `json:"traceId"`
}

// Summarize is c as a listing shows it to the viewer of ctx (people.go names its people).
func (o *Operator) Summarize(ctx context.Context, c Claim) Summary {
	s := Summary{ID: c.ID, ErrorID: c.Record.ErrorID, RecordType: c.Record.RecordType, RecordID: c.Record.RecordID,
		ErrorCode: c.Record.ErrorCode, Message: o.Mask.summaryMessage(c.Record.Message), Status: c.Status, Diagnosis: c.Diagnosis, ClaimedAt: c.ClaimedAt,
		ExternalSystem: c.Record.ExternalSystem, ApplyError: c.ApplyError, RetryView: retryView(c), TriageView: o.peopleFor(ctx).triage(c.Triage)}
	if !c.Record.OccurredAt.IsZero() {
		at := c.Record.OccurredAt.UTC()
		s.OccurredAt = &at
	}
	if c.Proposal != nil {
		s.Class = c.Proposal.Class
		conf := c.Proposal.Confidence
		s.Confidence = &conf
		s.Source = c.Proposal.Source
	}
	return s
}

// Detail is c as its detail shows it to the viewer of ctx (people.go names its people).
func (o *Operator) Detail(ctx context.Context, c Claim) Detail {
	p := o.peopleFor(ctx)
	d := Detail{Summary: o.Summarize(ctx, c), Error: o.Mask.Show(c.Record, FixOf(c)), EditedFix: c.EditedFix, DiagnosisError: c.DiagnosisError,
		Applied: c.Applied, ApplyError: c.ApplyError, History: p.history(c.History), Attempts: p.attempts(c.Retry.Log), UpdatedAt: c.UpdatedAt}
	if d.Attempts == nil {
		d.Attempts = []RetryAttempt{}
	}
	if d.History == nil {
		d.History = []HistoryEntry{}
	}
	if o.Fields != nil {
		t := o.Fields.WriteTarget(c)
		d.WritesTo = &t
	}
	if d.Notes = p.notes(c.Triage.Notes); d.Notes == nil {
		d.Notes = []Note{}
	}
	if c.Proposal != nil {
		d.Proposal = &ProposalView{Proposal: *c.Proposal, TraceID: c.Proposal.InferenceID}
	}
	return d
}

// NowUTC is the operator's clock, in UTC.
func (o *Operator) NowUTC() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// ListHandler serves GET /api/sync-error-assist/proposals?status=&limit=&cursor= with the
// filters, search and sort of listFilters; format=csv exports the same rows (export.go).
func (o *Operator) ListHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := Who(w, r)
		if !ok {
			return
		}
		q, ok := httpapi.ParseList(w, r, httpapi.ListSpec{DefaultLimit: DefaultListLimit, MaxLimit: MaxListLimit,
			Statuses: ListStatuses()})
		if !ok {
			return
		}
		lq, sort, ok := ListFilters(w, r, id, ListQuery{Status: Status(q.Status), Limit: q.Limit, Cursor: q.Cursor})
		if !ok {
			return
		}
		names := o.SystemNames(r.Context(), id.TenantID)
		lq = WithSystemNames(names, lq)
		switch r.URL.Query().Get("format") {
		case "", "json":
		case "csv":
			o.exportCSV(w, r, id.TenantID, lq, sort)
			return
		default:
			// Refused like every other filter's bad value, never answered as JSON (issue 36 §2).
			httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "format", Message: "must be json or csv"}})
			return
		}
		page, partial, err := o.sortedPage(r.Context(), id.TenantID, lq, sort)
		if errors.Is(err, ErrBadCursor) {
			httpapi.WriteBadCursor(w, r)
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
			return
		}
		if partial {
			w.Header().Set(SortWindowHeader, strconv.Itoa(SortWindow))
		}
		items := make([]Summary, len(page.Claims))
		rows := make([]*Summary, len(page.Claims))
		for i, c := range page.Claims {
			items[i], rows[i] = o.Summarize(r.Context(), c), &items[i]
		}
		nameSystems(names, rows)
		o.Annotate(r.Context(), id.TenantID, rows, page.Claims)
		writeListing(w, items, page.NextCursor, q.Cursor == "", names)
	})
}

// DetailHandler serves GET /api/sync-error-assist/proposals/{id}.
func (o *Operator) DetailHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := Who(w, r)
		if !ok {
			return
		}
		c, ok := o.Load(w, r, id.TenantID)
		if ok {
			d := o.Detail(r.Context(), c)
			nameSystems(o.SystemNames(r.Context(), id.TenantID), []*Summary{&d.Summary})
			o.Annotate(r.Context(), id.TenantID, []*Summary{&d.Summary}, []Claim{c})
			httpapi.WriteJSON(w, http.StatusOK, d)
		}
	})
}

// Load reads the row the path's id names for tenantID, or answers 404 or 503 and returns
// false.
func (o *Operator) Load(w http.ResponseWriter, r *http.Request, tenantID string) (Claim, bool) {
	id := r.PathValue("id")
	if !ValidClaimID(id) {
		NotFound(w, r)
		return Claim{}, false
	}
	c, err := o.Claims.Get(r.Context(), tenantID, id)
	if errors.Is(err, ErrNotFound) {
		NotFound(w, r)
		return Claim{}, false
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
		return Claim{}, false
	}
	return c, true
}

// Decidable reports whether a person may approve or reject a row in status s: pending, or
// escalated (handed on to an approver, who decides it).
func Decidable(s Status) bool { return s == StatusPending || s == StatusEscalated }

// WriteAudit writes an audit record of the caller's action; a failed write is logged, and
// the action stands.
func (o *Operator) WriteAudit(ctx context.Context, actor identity.Identity, key, result, resource string, details map[string]any) {
	if o.Audit == nil {
		return
	}
	if err := o.Audit.Write(ctx, audit.Entry{Actor: actor, ActionType: audit.TypeSyncError, ActionKey: key,
		Result: result, Resource: resource, Details: details}); err != nil {
		httpapi.Logger(ctx).Error("audit write failed", "actionKey", key, "error", err)
	}
}

// FixOf is the fix the row would write: the operator's edit, else the AI's.
func FixOf(c Claim) []FieldChange {
	if len(c.EditedFix) > 0 {
		return c.EditedFix
	}
	if c.Proposal != nil {
		return c.Proposal.Fix
	}
	return nil
}
