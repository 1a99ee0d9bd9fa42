package flow

import (
	"context"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// Record identity across systems. Systems never share ids, so a flow that carries a
// change to another system keeps a per-tenant cross-reference: (system, entity, id) of
// the source record ↔ (system, entity, id) of its counterpart, written when a flow
// creates or first matches the counterpart, and read by every later run of either
// direction (each link is stored once per direction).
//
// One counterpart, however the first changes arrive. The entry of a source record toward
// a target entity is claimed with a conditional put (pending, ClaimedBy the run) before
// anything is looked up or created; the run holding the claim is the only one that finds
// or creates the counterpart, and it links the entry when it knows the id. A run that
// meets another run's claim waits (it is retried by the redrive) while that run is still
// retrying or held, and takes the claim over (conditionally, on the old holder) once that
// run has ended without linking, so a crashed or failed holder cannot block a record for
// good.
//
// A crash between the write and the link is recovered by the holder's own next attempt
// (the redrive takes the run over when its lease ends), with the same idempotency key:
//   - an upsert by external id is idempotent by its key: sent again, it answers the same
//     record, which is then linked;
//   - a create is preceded by marking the claim Creating; the created record always holds
//     the match key (the run sets the match field), so the next attempt finds it by that
//     key before creating again, and links it as created; a lookup that finds nothing
//     before the vendor's own request timeout has passed since the create was sent
//     (connector.LateCommit: the vendor may still apply it) waits until then, and only
//     then creates (createLanding). Only a flow with match none has
//     no key to look for: its next attempt after a create whose outcome is unknown fails
//     with a sync error asking to check the target, rather than risk a second record. A
//     claim so marked is never released, only linked: the run that marked it may end (a
//     re-run after its one attempt, a run after its last), and the next run of the record
//     takes it over, mark and all;
//   - a create whose id is known but whose link could not be stored keeps the id in the
//     run's pending write, so the next attempt links it without looking.

// Ref is one record of one system.
type Ref struct {
	System connector.System `json:"system"`
	Entity string           `json:"entity"`
	ID     string           `json:"id"`
}

func (r Ref) endpoint() Endpoint { return Endpoint{System: r.System, Entity: r.Entity} }

// XRefState is a cross-reference entry's state.
type XRefState string

const (
	// XRefPending: a run claimed the entry and is finding or creating the counterpart.
	XRefPending XRefState = "pending"
	// XRefLinked: Target.ID is the counterpart.
	XRefLinked XRefState = "linked"
)

// Target actions: what a run did to find the record it wrote.
const (
	ActionCreated = "created"
	ActionMatched = "matched"
	ActionUpdated = "updated"
)

// XRef is one direction of a link between a record and its counterpart.
type XRef struct {
	Source Ref `json:"source"`
	// Target is the counterpart; its ID is empty while the entry is pending.
	Target Ref       `json:"target"`
	State  XRefState `json:"state"`
	// Anchor is the id of the record the link was first made from; both directions key
	// the loop check's link with it, so an echo is recognised although the ids differ.
	Anchor string `json:"anchor"`
	// ClaimedBy is the run holding a pending entry.
	ClaimedBy string `json:"claimedBy,omitempty"`
	// Creating says the holder sent a create whose outcome it has not seen, and
	// CreatingAt when it was sent: until the vendor's own timeout has passed since
	// (connector.LateCommit) a lookup that finds nothing is no proof nothing was made.
	Creating   bool       `json:"creating,omitempty"`
	CreatingAt *time.Time `json:"creatingAt,omitempty"`
	// Action is how the counterpart was found (created or matched) and LinkedBy the run
	// that linked it, with FlowID its flow.
	Action    string    `json:"action,omitempty"`
	LinkedBy  string    `json:"linkedBy,omitempty"`
	FlowID    string    `json:"flowId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// reverse is the entry of the other direction of a linked entry.
func (e XRef) reverse() XRef {
	r := e
	r.Source, r.Target, r.ClaimedBy, r.Creating, r.CreatingAt = e.Target, e.Source, "", false, nil
	return r
}

// XRefStore keeps a tenant's cross-reference. Every change is a single-item conditional
// write; see the comment above for how they make one counterpart.
type XRefStore interface {
	// XRef is the entry of src toward the target endpoint; ErrNotFound when none.
	XRef(ctx context.Context, tenantID string, src Ref, target Endpoint) (XRef, error)
	// ClaimXRef stores e (pending, claimed by e.ClaimedBy) when there is no entry of its
	// source toward its target endpoint; otherwise it returns the stored entry and
	// ErrTaken.
	ClaimXRef(ctx context.Context, tenantID string, e XRef) (XRef, error)
	// UpdateXRef replaces the pending entry claimed by claimedBy with e (still pending, a
	// new holder or a Creating mark); ErrTaken when it is no longer pending with that claim.
	UpdateXRef(ctx context.Context, tenantID string, e XRef, claimedBy string) error
	// LinkXRef checks e.LinkedBy holds the pending entry, stores the reverse entry of e
	// (linked) unless one is linked already, then replaces the pending entry claimed by
	// e.LinkedBy with e (linked); ErrTaken when that claim was lost. The reverse goes
	// first, so a linked entry always has its reverse.
	LinkXRef(ctx context.Context, tenantID string, e XRef) error
	// ReleaseXRef deletes the pending entry of src toward target if runID holds it; nil
	// when there is nothing to release.
	ReleaseXRef(ctx context.Context, tenantID string, src Ref, target Endpoint, runID string) error
	// XRefsOf lists the entries of src toward every target, by target.
	XRefsOf(ctx context.Context, tenantID string, src Ref) ([]XRef, error)
	// SwapXRef replaces one entry (prev's or next's key) in one conditional write, for an
	// admin's fix-up: prev nil requires that there is none, else the stored entry must
	// still be prev exactly as it was read; next nil deletes it. ErrTaken otherwise.
	SwapXRef(ctx context.Context, tenantID string, prev, next *XRef) error
}

// Finder finds target records by a field's value, through the tenant's connector (a read).
type Finder interface {
	Find(ctx context.Context, tenantID string, system connector.System, entity, field, value string) ([]string, error)
}

// ReverseXRef is the entry of the other direction of a linked entry, for stores.
func ReverseXRef(e XRef) XRef { return e.reverse() }

// EndpointOf is the system and entity of r.
func (r Ref) EndpointOf() Endpoint { return r.endpoint() }
