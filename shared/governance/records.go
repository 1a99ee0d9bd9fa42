package governance

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// Errors of the record stores, which callers branch on.
var (
	ErrNotFound = errors.New("governance: not found")
	// ErrStateChanged: the approval exists but is not in the state the update expected.
	ErrStateChanged = errors.New("governance: approval is not in the expected state")
	// ErrExists: an approval with this id was stored before.
	ErrExists = errors.New("governance: already exists")
	// ErrBadCursor: a cursor this store did not issue for this kind of query.
	ErrBadCursor = errors.New("governance: invalid cursor")
)

// ReasonOwnership is the reason of approvals held by the ownership check.
const ReasonOwnership = "ownership"

// ApprovalStatus is the state of a pending approval.
type ApprovalStatus string

// Approval states. releasing is the short lease between an approver's decision and the
// held write having reached the target; unsettled is a release whose write was sent and
// whose answer was lost, so the write may have landed: it cannot be denied until an
// approver settles it (says whether the target holds the write: approved or pending
// again), or an approve sends an update again under its idempotency key. See the package
// documentation.
const (
	StatusPending   ApprovalStatus = "pending"
	StatusReleasing ApprovalStatus = "releasing"
	StatusUnsettled ApprovalStatus = "unsettled"
	StatusApproved  ApprovalStatus = "approved"
	StatusDenied    ApprovalStatus = "denied"
)

// Valid reports whether s is one of the approval states.
func (s ApprovalStatus) Valid() bool {
	switch s {
	case StatusPending, StatusReleasing, StatusUnsettled, StatusApproved, StatusDenied:
		return true
	}
	return false
}

// OwnershipRejection records fields of a write refused (reject_with_alert) or dropped
// (source_wins) because another system owns them. It names fields, never values.
type OwnershipRejection struct {
	ID            string
	Time          time.Time
	Tenant        string
	Entity        string
	DeclaredOwner connector.System
	// Caller is the write's Source: the system whose authority the write claimed.
	Caller        connector.System
	Target        connector.System
	Policy        Policy
	CorrelationID string
	// Resource is "<target>/<entity>/<recordId>".
	Resource string
	Fields   []string
}

// LoopDetection records a reciprocal write the guard blocked.
type LoopDetection struct {
	ID     string
	Time   time.Time
	Tenant string
	Entity string
	Caller connector.System
	Target connector.System
	// BreakingCondition says which earlier write made this one reciprocal and why.
	BreakingCondition string
	CorrelationID     string
	Resource          string
}

// PendingApproval is a write held by the ownership check until an approver decides.
type PendingApproval struct {
	ID            string
	Time          time.Time
	Tenant        string
	Entity        string
	DeclaredOwner connector.System
	Caller        connector.System
	Target        connector.System
	Resource      string
	// Reason is why the write is held: ReasonOwnership.
	Reason string
	Status ApprovalStatus
	// Request is the held write. Its fields passed the DLP scan with the connector-write
	// policy before it was held (a blocked write is never held), and pass it again on
	// release.
	Request WriteRequest
	// PayloadHash is the PayloadHash of Request.Fields, taken when the write was held: with
	// the request's source, entity and record it is what the approval is bound to (a
	// write under the same idempotency key that differs is ErrApprovalMismatch). Empty on
	// approvals stored before it was kept; those are compared on Request.Fields.
	PayloadHash string
	// Fields are the names of the fields in conflict with DeclaredOwner.
	Fields        []string
	CorrelationID string
	// RequestedBy is the actor of the identity that asked for the write, and
	// RequestedByKeys its identity.NameKeys: four eyes tells the same person signed in
	// under another name (the console's login id, the embedded surface's host user id).
	RequestedBy     string
	RequestedByKeys []string
	DecidedBy       string
	DecidedAt       time.Time
}

// RecordQuery selects a tenant's records with Time in [From, To), newest first.
type RecordQuery struct {
	Tenant   string
	From, To time.Time
	Limit    int
	Cursor   string
}

// ApprovalQuery selects a tenant's approvals of one status and reason, newest first.
type ApprovalQuery struct {
	Tenant string
	Status ApprovalStatus
	Reason string
	Limit  int
	Cursor string
}

// Page is one page of a listing; NextCursor is empty on the last page.
type Page[T any] struct {
	Items      []T
	NextCursor string
}

// RecordStore keeps the governance records. Every key starts with the tenant, so no
// operation can reach another tenant's records.
type RecordStore interface {
	PutRejection(ctx context.Context, r OwnershipRejection) error
	ListRejections(ctx context.Context, q RecordQuery) (Page[OwnershipRejection], error)

	PutLoop(ctx context.Context, l LoopDetection) error
	ListLoops(ctx context.Context, q RecordQuery) (Page[LoopDetection], error)

	// PutApproval stores a new approval; ErrExists if its id is taken, so a retried hold
	// of the same write does not queue it twice.
	PutApproval(ctx context.Context, a PendingApproval) error
	// GetApproval returns ErrNotFound for an unknown id, or another tenant's.
	GetApproval(ctx context.Context, tenant, id string) (PendingApproval, error)
	ListApprovals(ctx context.Context, q ApprovalQuery) (Page[PendingApproval], error)
	// DecideApproval moves an approval from one status to another in one conditional
	// update and returns it as updated. by and at become DecidedBy and DecidedAt; an empty
	// by clears both (a release that failed goes back to pending undecided). It returns
	// ErrNotFound or ErrStateChanged.
	DecideApproval(ctx context.Context, tenant, id string, from, to ApprovalStatus, by string, at time.Time) (PendingApproval, error)
	// RetakeRelease takes over an approval left in releasing with DecidedAt before
	// staleBefore, setting DecidedBy and DecidedAt, in one conditional update: of
	// concurrent takers exactly one succeeds. ErrNotFound or
	// ErrStateChanged otherwise.
	RetakeRelease(ctx context.Context, tenant, id string, staleBefore time.Time, by string, at time.Time) (PendingApproval, error)
}

// RecordRetention is how long stores keep rejections and loop detections. The API serves
// the last hour; the rest is for investigating an incident, and the audit log keeps the
// permanent trail.
const RecordRetention = 30 * 24 * time.Hour
