package flow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// A run whose write the guard holds for an ownership approval, and how it ends.
//
// The run writes its held write itself, once an approver has approved it: its writes are
// ReleaseByRetry (completeRequest), so the approver's release only approves, and the
// redrive watches the held run (kept with its pending write and a next check, in the due
// index) and attempts it again when the approval is decided. That attempt meets the
// approval under its idempotency key (the run id): approved, the guard writes it through;
// denied, the guard refuses it (ErrApprovalDenied) and the run ends rejected.
//
// Why the run, not the release, writes it: a release that wrote would have to tell the
// run what it wrote (a create's record id, which only its answer names) and link it in
// the cross-reference, from another function, and a release that stopped between the
// write and that update would leave a record nothing links, which the run's next attempt
// (matching by nothing) could only create again. Written by the run, the write, its link
// and its claim go through the one path every other attempt takes, with its crash
// safety: the claim is marked Creating before the create is sent, the run's lease hands
// an attempt that died to the redrive, and a created record's id is kept in its pending
// write until linked. A create that is held sent nothing, and no release sends it, so its
// Creating mark is cleared (create); runs of the record that meet the claim wait while
// the held run is watched (claim), so the approved create is the one that makes the
// record. A denied write made nothing: the run's claim is released as for any refusal.
//
// The cost is a delay: the write lands at the redrive's next check after the approval
// (HeldRecheck), not at the approver's click. Each check of an undecided approval is one
// read of it and one conditional save of the run, off every event's path; held runs are
// listed apart from retrying ones (Store.DueRuns), so their checks never delay a retry.

// How often the redrive checks a held run's approval: every HeldRecheck at first (the
// redrive's own interval), then less often as the approval waits, up to MaxHeldRecheck.
const (
	HeldRecheck    = 5 * time.Minute
	MaxHeldRecheck = time.Hour
)

// Approvals reads the approval a held write waits on; *governance.Guard implements it.
type Approvals interface {
	HeldApproval(ctx context.Context, tenant string, target connector.System, key string) (governance.PendingApproval, error)
}

// hold keeps a run whose write is held: its pending write stays (its attempt after the
// approval makes it) and the redrive checks the approval at its next check.
func (x *Executor) hold(r *Run, res governance.Result, decision string) {
	if res.Held != nil {
		r.ApprovalID = res.Held.ID
	}
	next := x.now().Add(heldRecheck(x.now().Sub(r.CreatedAt)))
	r.Outcome, r.NextAttemptAt = OutcomeHeld, &next
	r.Decision = decision + " (approval " + r.ApprovalID + "); this run writes it once an approver approves it"
}

// heldRecheck is the wait before the next check of an approval that has waited age: a
// quarter of it, between HeldRecheck and MaxHeldRecheck.
func heldRecheck(age time.Duration) time.Duration {
	return min(max(age/4, HeldRecheck), MaxHeldRecheck)
}

// heldDue handles a held run the redrive found due, and reports whether to attempt it:
// its approval approved (the attempt writes it), or not readable as an approval (the
// attempt holds it again, anew if it is gone). An approval still waiting schedules the
// run's next check; a denied one ends the run here, without a write: the guard refuses a
// denied write only while the manifest still holds it, and an approver's no must not
// turn into a write because the manifest changed since. A read that fails leaves the run
// to the next redrive.
func (x *Executor) heldDue(ctx context.Context, r Run, now time.Time) (attempt bool) {
	ap, ok := x.Guard.(Approvals)
	if !ok {
		return true
	}
	a, err := ap.HeldApproval(ctx, r.TenantID, r.Target.System, r.ID)
	switch {
	case errors.Is(err, governance.ErrNotFound):
		return true
	case err != nil:
		httpapi.Logger(ctx).Warn("held run's approval not read; the next redrive checks it", "tenant", r.TenantID, "run", r.ID, "error", err)
		return false
	case a.Status == governance.StatusApproved:
		return true
	case a.Status == governance.StatusDenied:
		x.denied(ctx, r, a, now)
		return false
	}
	next := now.Add(heldRecheck(now.Sub(r.CreatedAt)))
	r.NextAttemptAt, r.UpdatedAt = &next, now
	// Conditional on the attempt count, as any save: a redrive that took the run
	// meanwhile (its approval decided) keeps it.
	if err := x.Store.SaveRun(ctx, r, r.Attempts); err != nil && !errors.Is(err, ErrTaken) {
		httpapi.Logger(ctx).Warn("held run's next check not stored", "tenant", r.TenantID, "run", r.ID, "error", err)
	}
	return false
}

// denied ends a held run whose approval an approver denied: rejected, nothing written,
// its cross-reference claim released (a denied create made nothing), so the next change
// of the record finds or creates the counterpart. Taken first, as an attempt, so that a
// redrive doing the same meanwhile ends it once.
func (x *Executor) denied(ctx context.Context, r Run, a governance.PendingApproval, now time.Time) {
	r, err := x.take(ctx, r, now)
	if err != nil {
		return // taken by another redrive, or left to the next one
	}
	attempts := r.Attempts
	matched := r.Pending != nil && r.Pending.Match != nil && x.XRefs != nil
	r.UpdatedAt = now
	x.end(&r, OutcomeRejected, "the held write was denied by "+a.DecidedBy+" (approval "+a.ID+"); nothing was written")
	// ReleaseXRef deletes the claim only while this run still holds it.
	r.claimed = matched
	x.releaseClaim(ctx, &r)
	if err := x.Store.SaveRun(ctx, r, attempts); err != nil {
		httpapi.Logger(ctx).Error("denied held run not stored; the redrive ends it again", "tenant", r.TenantID, "run", r.ID, "error", err)
		return
	}
	emitDecided(r, now)
}

// approvedCreateMade reports whether r's approved write was a create (or an upsert) that
// an earlier attempt of r made: r's write was held and approved, and this attempt found
// the record linked by r, or found by its match key a record r's create may have made.
// Such a record holds the write already (a create carries the fields), and writing it
// again as an update would be refused as another write than the approval's (the guard's
// sameWrite), failing a run whose write was made. Asked only of a held run's attempt
// after a stop between its write and its save: one read of the approval.
func (x *Executor) approvedCreateMade(ctx context.Context, r *Run) (bool, error) {
	ap, ok := x.Guard.(Approvals)
	if r.ApprovalID == "" || !ok {
		return false, nil
	}
	a, err := ap.HeldApproval(ctx, r.TenantID, r.Target.System, r.ID)
	switch {
	case errors.Is(err, governance.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: reading approval %s: %w", errXRef, r.ApprovalID, err)
	}
	return a.Status == governance.StatusApproved && (a.Request.Create || a.Request.UpsertKey != ""), nil
}

// madeResult is the guard's answer for a write an earlier attempt made to id.
func madeResult(r *Run, id string) governance.Result {
	return governance.Result{Written: connector.WriteResult{Record: connector.Record{Entity: r.Target.Entity, ID: id}}}
}
