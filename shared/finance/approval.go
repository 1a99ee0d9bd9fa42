package finance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// Status is the state of a finance approval row.
type Status string

// Row states (SPEC.md "Finance approval row"; the name after reject is ARCHITECTURE.md's).
const (
	StatusPending  Status = "pending"
	StatusApplying Status = "applying"
	StatusAccepted Status = "accepted"
	StatusRejected Status = "rejected"
)

// Statuses lists every state, for validating a listing's status filter.
var Statuses = []Status{StatusPending, StatusApplying, StatusAccepted, StatusRejected}

// statusNames are Statuses as the listing's query accepts them; pending, the default, first.
var statusNames = func() []string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return out
}()

// Errors a caller branches on.
var (
	ErrNotFound = errors.New("finance approval not found")
	// ErrStateChanged means a conditional write found the row in another state, or held
	// under another lease token.
	ErrStateChanged = errors.New("finance approval is in another state")
	// ErrBadCursor means a listing cursor was not issued for this listing.
	ErrBadCursor = errors.New("invalid cursor")
	// ErrInvalidID means an id is not a well-formed approval id (ValidID).
	ErrInvalidID = errors.New("malformed finance approval id")
	// ErrNotPending means the row is accepted or rejected: nothing is left to decide.
	ErrNotPending = errors.New("finance approval is not pending")
	// ErrLeaseHeld means another approve holds the row's lease and it has not expired.
	ErrLeaseHeld = errors.New("finance approval is being applied by another approve")
	// ErrIDReused means the host created an approval under an id that already names a
	// different approval of the tenant.
	ErrIDReused = errors.New("approval id already used for a different approval")
	// ErrOwnRequest means the approver is the person who requested the approval (four
	// eyes): someone else must approve it.
	ErrOwnRequest = errors.New("the approver requested this finance approval")
)

// Approval is one finance approval row.
type Approval struct {
	TenantID string
	// ID is the host's approvalId; unique per tenant.
	ID string
	// ERPID is the ERP record the approval updates; empty when the host sent none, in
	// which case approving fails and the lease reverts.
	ERPID string
	// Entity is the ERP record type, e.g. "vendorBill".
	Entity string
	// Amount is a plain decimal as the host sent it ("12480.00"), kept as text so no
	// float ever rounds money.
	Amount   string
	Currency string
	Vendor   string
	// Description and RequestedBy are optional.
	Description string
	RequestedBy string
	// Fields is the compact JSON object of ERP fields the approve sets on the record.
	Fields json.RawMessage
	Status Status
	// Lease is set while an approve holds the row (applying). Its token never leaves the
	// service.
	Lease *Lease
	// AppliedBy and AppliedAt are set once an approve's ERP update was confirmed: whose
	// approve and when. From then on the row only ends accepted (by that approve, the
	// next approve or the sweep), never pending again.
	AppliedBy string
	AppliedAt time.Time
	// LastError is the last approve failure, in words fit for the operator.
	LastError string
	// DecidedBy and DecidedAt are the approver who accepted or rejected the row, and when.
	DecidedBy string
	DecidedAt time.Time
	// Note is the approver's reason for a reject.
	Note      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Lease is an approve in progress: the row is applying until the token's holder finishes
// or the lease expires (then the sweep, or another approve, may take over).
type Lease struct {
	Token     string
	ExpiresAt time.Time
	// Holder is the actor whose approve took the lease: the decider when a sweep
	// completes the row from the ledger or the ERP record (its marker lost), as the spec
	// attributes decisions to people, never to the schedule that found them.
	Holder string
	// Since is when the first lease of this applying spell was taken: a takeover carries
	// it over. Every holder since may have updated the ERP, so the sweep and a takeover
	// look for the update from Since, never from the latest holder's start (UpdatedAt),
	// which would miss a displaced holder's update. Zero on a lease taken before it was
	// kept: see writesSince.
	Since time.Time
}

// DefaultLeaseTTL bounds one approve. It is four times the approve Lambda's 30 s timeout,
// so a holder that is still running is never taken over.
const DefaultLeaseTTL = 2 * time.Minute

// NewLease returns a lease with a fresh random token that begins an applying spell at now.
func NewLease(now time.Time, ttl time.Duration) Lease {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return Lease{Token: hex.EncodeToString(b[:]), ExpiresAt: now.Add(ttl).UTC(), Since: now.UTC()}
}

// Page is one page of a listing, newest first.
type Page struct {
	Approvals  []Approval
	NextCursor string
}

// Store persists approval rows. Every change is one single-item conditional write: the
// emulator has no transactions, and none is needed.
type Store interface {
	// Create inserts a if its tenant has no row with its id; false, with no error and no
	// change, when one exists.
	Create(ctx context.Context, a Approval) (created bool, err error)
	// Get returns ErrNotFound for an unknown id (or another tenant's).
	Get(ctx context.Context, tenantID, id string) (Approval, error)
	// List returns a tenant's rows in status, newest first (by CreatedAt, then id).
	// ErrBadCursor for a cursor this listing did not issue.
	List(ctx context.Context, tenantID string, status Status, limit int, cursor string) (Page, error)
	// BeginAccept takes the lease of a pending row: pending → applying. It returns the row
	// as updated. ErrNotFound when there is no row, ErrStateChanged when it is not pending.
	BeginAccept(ctx context.Context, tenantID, id string, lease Lease, now time.Time) (Approval, error)
	// BeginAccept and TakeOver store lease as given, Since included (absent when zero).
	//
	// TakeOver replaces the lease expiredToken of an applying row with lease, if that lease
	// expired before now and the row is not marked applied, and returns the row as updated.
	// It is apart from BeginAccept so that the caller knows it displaced a holder, whose
	// ERP update may have landed: it must find out before writing again. ErrNotFound
	// when there is no row, ErrStateChanged when the row is in another state, under
	// another token, marked applied, or its lease still holds.
	TakeOver(ctx context.Context, tenantID, id, expiredToken string, lease Lease, now time.Time) (Approval, error)
	// MarkApplied records on the row applying under token that by's ERP update was
	// confirmed at. ErrStateChanged when the token no longer holds.
	MarkApplied(ctx context.Context, tenantID, id, token, by string, at time.Time) error
	// CompleteAccept moves the row applying under token to accepted, decided by
	// decidedBy at now, and returns it. ErrStateChanged when the token no longer holds.
	CompleteAccept(ctx context.Context, tenantID, id, token, decidedBy string, now time.Time) (Approval, error)
	// Revert moves the row applying under token back to pending with lastError recorded.
	// ErrStateChanged when the token no longer holds or the row is marked applied.
	Revert(ctx context.Context, tenantID, id, token, lastError string, now time.Time) error
	// Reject moves a pending row to rejected, decided by decidedBy with the note, and
	// returns it. ErrStateChanged when the row is not pending.
	Reject(ctx context.Context, tenantID, id, decidedBy, note string, now time.Time) (Approval, error)
	// ExpiredLeases lists up to limit rows of a tenant applying under a lease that
	// expired before now, in no particular order.
	ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]Approval, error)
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`)

// ValidID reports whether id is a well-formed approval id: 1 to 64 letters, digits, '.',
// '_', ':' and '-', starting with a letter or digit. ERP document numbers fit; nothing
// that would change a URL path's meaning does.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// IdempotencyKey is the key of an approval's ERP update: a pure function of its id, so a
// retried or taken-over approve is replayed by the ERP, never applied twice. The prefix
// keeps it apart from the sync-error write-back keys the same ERP receives.
func IdempotencyKey(approvalID string) string { return "finance-approval:" + approvalID }

// DefaultFields are the ERP fields an approve sets when the host named none.
var DefaultFields = json.RawMessage(`{"approvalStatus":"approved"}`)

// Confirmed reports whether a write result confirms the update of a's ERP record. A
// connector "returns nothing" — and the approve fails — when the result names no record
// (a zero WriteResult), names another record than a.ERPID, or is empty: no fields and no
// version, which is what the connector makes of a 2xx answer with an empty body and no
// ETag. A record that echoes the id with fields or a version is a confirmation.
func Confirmed(a Approval, r connector.WriteResult) bool {
	rec := r.Record
	return rec.ID != "" && rec.ID == a.ERPID && (len(rec.Fields) > 0 || rec.Version != "")
}

// ListKey is a row's position in listings: creation time (fixed-width, so keys sort as
// strings), then id. Stores sort by it (descending) and cursors carry it.
func ListKey(createdAt time.Time, id string) string {
	return dynamostore.FormatTime(createdAt) + "#" + id
}

// EncodeCursor returns the cursor that continues a listing after the row with listKey.
func EncodeCursor(listKey string) string { return dynamostore.EncodeCursor(listKey) }

// DecodeCursor returns the list key and the row id a cursor continues after, or
// ErrBadCursor. Only the strict spelling decodes, so each cursor has exactly one.
func DecodeCursor(cursor string) (listKey, id string, err error) {
	listKey, id, ok := dynamostore.DecodeTimedCursor(cursor, "")
	if !ok || !ValidID(id) {
		return "", "", ErrBadCursor
	}
	return listKey, id, nil
}

// sameRequest reports whether b carries the same approval request as a: a redelivery,
// not a different approval under a reused id.
func sameRequest(a, b Approval) bool {
	return a.ERPID == b.ERPID && a.Entity == b.Entity && a.Amount == b.Amount && a.Currency == b.Currency &&
		a.Vendor == b.Vendor && a.Description == b.Description && a.RequestedBy == b.RequestedBy &&
		bytes.Equal(a.Fields, b.Fields)
}
