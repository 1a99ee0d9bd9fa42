package syncerror

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// HistoryEntry is one action on a row, shown to operators in the proposal's detail.
type HistoryEntry struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"` // claimed, approve, approved, apply_failed, rejected, escalated, lease_expired
	Note   string    `json:"note,omitempty"`
	// You marks, in an answer only, the viewer's own entry (queue/people.go); never stored.
	You bool `json:"you,omitempty"`
}

// Lease is an approve in progress: the row is applying until the token's holder finishes
// or the lease expires (then the reconcile, or another approve, may take over).
type Lease struct {
	Token     string
	ExpiresAt time.Time
	// From is the status the row was approved from (empty: pending). A write that does not
	// happen returns the row there, so an escalated row stays for an approver.
	From Status
	// Fix is the fix the write under this lease carries, typed as it is sent, and Key its
	// idempotency key (FixKey): kept on the row while it is applying, so that whoever
	// settles a lease that ended unfinished (the reconcile) looks for that write, under
	// that key, and records that fix, not one recomputed from the proposal or an edit.
	Fix []FieldChange
	Key string
	// Unbound says Key and Fix are not known to be this lease's: the store found them
	// under another token (a Lambda of an earlier version, which did not know them, ended
	// the lease they were stored with and took this one) or under none. LeaseWrites then
	// looks for the guesses as well.
	Unbound bool
}

// Origin is the status a row returns to when the write under this lease does not happen.
func (l Lease) Origin() Status {
	if l.From == "" {
		return StatusPending
	}
	return l.From
}

// DefaultLeaseTTL bounds an approve's write-back; it exceeds the connector's retries.
const DefaultLeaseTTL = 2 * time.Minute

// NewLease returns a lease with a fresh random token.
func NewLease(now time.Time, ttl time.Duration) Lease {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return Lease{Token: hex.EncodeToString(b[:]), ExpiresAt: now.Add(ttl).UTC()}
}

// AppliedWrite records that the write-back of a fix reached the host ERP: the write's
// idempotency key (FixKey of the fix written) and when.
type AppliedWrite struct {
	Key string    `json:"key"`
	At  time.Time `json:"at"`
	// Prior is what the record held in each field the fix wrote, read from it just before
	// the write: what a revert restores. Empty when the record could not be read then (or
	// the reconcile completed the write); a revert then refuses rather than write a "before"
	// nobody read.
	Prior []PriorValue `json:"prior,omitempty"`
	// Fix is the fix the write carried, typed as written, without the fields the ownership
	// manifest dropped: what a retry writes again with the re-run (ApprovedFix) and what
	// a revert takes back. Empty on rows approved before it was kept (WrittenFix).
	Fix []FieldChange `json:"fix,omitempty"`
	// RevertsMarked says every revert of this write leaves a mark (RevertMarks) on the row
	// before it sends anything: without a mark no revert of this version was sent. A retry
	// that finds the fix lost then asks only the guard's ledger (a revert Lambda of the
	// version before, during a deploy or after a rollback, marks nothing), never the audit
	// log. False on rows approved before marks were kept: a retry asks those the ledger and
	// the audit log as before (wire/retryfix.go). The row's own bookkeeping (as
	// RevertMarks): never in an answer.
	RevertsMarked bool `json:"-"`
	// RevertMarks are the marks reverts of this write left on the row just before they
	// sent (AssistStore.MarkRevertSent), one per revert: a revert adds its own beside the
	// others and takes back only its own, so a second revert that fails never removes the
	// mark of an earlier one whose answer was lost and which may still land. A mark stays
	// where its revert landed, in part or whole, or its answer was lost; it is removed
	// where its revert is known not to have landed. While any stays, a retry writes nothing
	// and re-runs nothing with the fix. Oldest first. Not in an answer: the row's status
	// and history say what became of a revert.
	RevertMarks []RevertMark `json:"-"`
}

// RevertMark is a revert about to be sent: when, and a token that tells this revert's
// mark from another's, so a revert that failed removes its own mark and never one
// another revert left.
type RevertMark struct {
	At    time.Time
	Token string
}

// SortRevertMarks orders marks oldest first (then by token), as the stores answer them:
// a store's set has no order of its own.
func SortRevertMarks(ms []RevertMark) {
	slices.SortFunc(ms, func(a, b RevertMark) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Token, b.Token)
	})
}

// NewRevertMark returns a mark at now with a fresh random token.
func NewRevertMark(now time.Time) RevertMark {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return RevertMark{At: now.UTC(), Token: hex.EncodeToString(b[:])}
}

// PriorValue is one field of the record before a fix wrote it: its value, or Absent when
// the record had no such field (a revert clears it). Withheld marks a value the stored-data
// policy does not keep at rest (a secret, card number or national id): a revert cannot
// restore it and refuses. Wrote is the value the fix wrote, typed as written: a revert
// restores only where the record still holds it.
type PriorValue struct {
	Path     string `json:"path"`
	Value    any    `json:"value"`
	Absent   bool   `json:"absent,omitempty"`
	Withheld bool   `json:"withheld,omitempty"`
	Wrote    any    `json:"wrote"`
}

// Page is one page of a listing, newest first.
type Page struct {
	Claims     []Claim
	NextCursor string
}

// ListQuery selects a page of a tenant's rows in one status, newest (or oldest) first. The
// filters narrow it on the server, so a filtered list pages like an unfiltered one; how a
// store pays for each is in dynamo/list.go.
type ListQuery struct {
	Status Status
	// Class keeps rows whose proposal has this error class ("" keeps all).
	Class string
	// Since keeps rows claimed at or after it (zero keeps all).
	Since time.Time
	// Search keeps rows whose error id, record id or message contains it, ignoring case.
	Search string
	// Assignee keeps rows assigned to this actor; Unassigned keeps rows assigned to nobody.
	Assignee   string
	Unassigned bool
	// Tag keeps rows carrying this tag.
	Tag string
	// System keeps rows whose external system (Record.ExternalSystem, as the host sent
	// it) is exactly this ("" keeps all).
	System string
	// Systems, when set, widens System to every name that resolves to the same connector
	// system (tenant.Config.NamesOf): rows whose external system is one of them, compared
	// trimmed and without case (queue/systems.go).
	Systems []string
	// Oldest lists oldest first instead of newest first.
	Oldest bool
	Limit  int
	Cursor string
	// Statuses, when set, lists these statuses as one listing (status "open" or "any"):
	// the queue merges a store page of each (queue/listmerge.go). A store lists Status.
	Statuses []Status
	// Share is how many statuses one merged page reads: a store divides its scan bound by
	// it, so a merged page examines about as many rows as one status's page.
	Share int
	// Decider keeps rows whose fix the viewer can approve ("you") or that need an approver
	// or two: the queue applies it to a bounded window (queue/listsort.go); a store ignores it.
	// Approver says whether the viewer holds the approver role.
	Decider  string
	Approver bool
}

// Filtered reports whether q narrows the status by anything but time: then a store reads
// rows the answer leaves out, and bounds how many (ListScanCap).
func (q ListQuery) Filtered() bool {
	return q.Class != "" || q.Search != "" || q.Assignee != "" || q.Unassigned || q.Tag != "" || q.System != ""
}

// DecisionStore holds the operator side of the row's life: listing, the approve lease and
// the reject/escalate decisions. Every change is one conditional write.
type DecisionStore interface {
	// List returns a tenant's rows in status, newest first. ErrBadCursor for a cursor this
	// store did not issue.
	List(ctx context.Context, tenantID string, q ListQuery) (Page, error)
	// BeginApply takes the lease: from (pending or escalated, the status the approver
	// decided on) with a ready diagnosis and no write marked applied → applying, with the
	// lease's fix and key. An applying row is never taken: a lease that ended unfinished
	// may have written its fix, and only the reconcile settles it (by its marker, the
	// ledger or a read of the record). edited, when not nil, is stored as the operator's
	// fix beside the AI's; nil removes an earlier edit, so the row never shows an edit
	// that was not written. ErrStateChanged (or ErrNotFound) otherwise.
	BeginApply(ctx context.Context, tenantID, id string, from Status, lease Lease, edited []FieldChange, entry HistoryEntry, now time.Time) (Claim, error)
	// MarkApplied records on the applying row held with token that its write-back reached
	// the host ERP, with the fix it wrote (w.Fix). ErrStateChanged when the token no
	// longer holds the row.
	MarkApplied(ctx context.Context, tenantID, id, token string, w AppliedWrite, now time.Time) error
	// FinishApply ends the lease held with token: to approved (success) or back to pending
	// with applyErr recorded. A row marked applied only ends approved: ErrStateChanged for
	// any other status, and when the token no longer holds the row. Ending anywhere but
	// approved removes the edit BeginApply stored: it was not written, and a row that is
	// decided again holds no edit, so what the bulk preview, the approval policy and the
	// detail read as its fix (FixOf) is what a bodyless approve writes, the AI's. The
	// attempt stays in the history: the approve's entry names the edit (decisions'
	// approveNote). Except where entry's action keeps it (KeepsEdit): a write held for an
	// ownership approval, or one that may have landed, leaves its edit on the row, which
	// the next bodyless approve writes under the same key (EditKept).
	FinishApply(ctx context.Context, tenantID, id, token string, to Status, applyErr string, entry HistoryEntry, now time.Time) error
	// CompleteApply is MarkApplied and FinishApply to approved in one conditional write:
	// the applying row held with token records its write-back and ends approved, so no
	// state lies between the two. It returns the row as the write left it (the approve
	// answers with it, no read after). ErrStateChanged when the token no longer holds the row.
	CompleteApply(ctx context.Context, tenantID, id, token string, w AppliedWrite, entry HistoryEntry, now time.Time) (Claim, error)
	// Decide moves a row still in from (the status the decision was made on) to rejected or
	// escalated with the entry's reason. ErrStateChanged when it is in another status, or
	// when a write of its fix is marked applied (the record holds it: never reopened).
	Decide(ctx context.Context, tenantID, id string, from, to Status, entry HistoryEntry, now time.Time) error
	// ExpiredLeases lists up to limit rows applying with a lease that expired before now.
	ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]Claim, error)
}
