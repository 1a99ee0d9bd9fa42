package syncerror

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// FixWriter writes an approved fix back to the host ERP through the governed write path.
// It returns a *RefusedError when governance refuses the write, an error wrapping
// ErrWriterNotConfigured when the tenant has no host ERP connector, one wrapping
// ErrRecordChanged when ifVersion is set and the record no longer has that version (nothing
// written), and any other error when the write itself failed. ifVersion "" writes whatever
// version the record has.
type FixWriter interface {
	WriteFix(ctx context.Context, who identity.Identity, c Claim, fix []FieldChange, idempotencyKey, ifVersion string) error
}

// HeldWrites is a FixWriter that can tell when a write under a key was first held for an
// ownership approval. Such a write is released by retry: the approval's release writes
// nothing, and the row's next decision under the same key writes it. A revert asked
// within RevertWindow and held past it is written by the revert that follows its
// release: the hold's time is when the revert was asked, recorded durably by the guard
// (decisions.RevertHandler). ok is false when nothing is held under the key.
type HeldWrites interface {
	HeldSince(ctx context.Context, c Claim, key string) (at time.Time, ok bool, err error)
}

// ErrWriterNotConfigured means the tenant has no host ERP connector to write to.
var ErrWriterNotConfigured = errors.New("host ERP connector not configured")

// ErrRecordChanged wraps a write pinned to a version the record no longer has: someone
// changed it after it was read, and nothing was written.
var ErrRecordChanged = errors.New("the record changed after it was read; nothing was written")

// ErrMayHaveApplied wraps a write-back whose answer was lost (a timeout, a reset, a 5xx
// midway): the target may hold the fix. It is settled by reading the record back, never
// by reporting the write failed: returned to pending, the row could be rejected, or
// approved with another fix and written twice.
var ErrMayHaveApplied = errors.New("the write's answer was lost; it may have been applied")

// LostAnswerError is a write-back whose answer was lost (it is ErrMayHaveApplied) that
// carried the fix without the fields in Left: the guard leaves out fields the ownership
// manifest gives another system (source_wins) or that would close a loop, before it sends.
// A read-back compares the record with what was sent, never with a field that was not.
// Answered says the target's last answer was its own (connector.Answered: a 500 or 503,
// not a timeout or a gateway's 502/504): a read-back then settles the write either way,
// where without an answer the request may still land after the read.
type LostAnswerError struct {
	Left     []string
	Answered bool
	Err      error
}

func (e *LostAnswerError) Error() string { return ErrMayHaveApplied.Error() + ": " + e.Err.Error() }

func (e *LostAnswerError) Unwrap() []error { return []error{ErrMayHaveApplied, e.Err} }

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

// Operator is the small base the rooms' services share: the approval policy's and
// knowledge's routes (policy.Service), the queue's reads (queue.Service, on the policy)
// and the decisions on a row (decisions.Service, on the queue) each embed it for the
// store, masking, tenants, audit and clock. Authentication and roles are checked by
// middleware in front; the tenant always comes from the caller's identity, so another
// tenant's row is simply not found.
type Operator struct {
	Claims ClaimStore
	// Mask shows stored rows with their contact data masked (nil: as stored).
	Mask *Masker
	// Tenants holds the feature flags that approve, reject, escalate and bulk decisions
	// check; nil checks none.
	Tenants tenant.Reader
	Audit   Auditor
	Now     func() time.Time
	// Fields types an approved fix by its target's metadata (nil: written as sent).
	Fields FieldCatalog
}

// Queue listing limits.
const (
	DefaultListLimit = 25
	MaxListLimit     = 100
)

// NowUTC is the operator's clock, in UTC.
func (o *Operator) NowUTC() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
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
