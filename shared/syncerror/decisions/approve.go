package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"

	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/retry"
)

// WriteReserve is the time an approve keeps, of the request's deadline (the Lambda's),
// for what follows the host ERP write: marking the row, completing it and the audit.
const WriteReserve = 5 * time.Second

// DefaultWriteTimeout bounds the host ERP write of an approve whose request has no
// deadline (the local stack).
const DefaultWriteTimeout = 25 * time.Second

// approval is one approve in progress: the lease it holds and what it writes.
type approval struct {
	note  string // the approved entry's note (a partial write names what it left out)
	o     *Service
	w     http.ResponseWriter
	r     *http.Request
	actor identity.Identity
	row   syncerror.Claim
	lease syncerror.Lease
	fix   []syncerror.FieldChange
	key   string
	// written is the fix as the write carried it: fix without the fields the ownership
	// manifest dropped. The row keeps it (AppliedWrite.Fix) for the retry and the revert.
	written []syncerror.FieldChange
	details map[string]any
	// prior is what the record held in the fix's fields just before the write.
	prior []syncerror.PriorValue
}

// ApproveHandler serves POST /api/sync-error-assist/proposals/{id}/approve. It takes the
// lease (pending → applying), writes the fix (the operator's edit if given) back through
// the governed path, marks the row applied and ends it approved. A write that was refused
// or failed returns the row to pending with the error recorded; a write that happened is
// never reported as failed: if a later step fails, the answer says the fix was written
// and the reconcile completes the row.
func (o *Service) ApproveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok || !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body approveBody
		if !syncerror.ReadJSON(w, r, &body, true) {
			return
		}
		if fe := body.validate(); fe != nil {
			syncerror.WriteFieldError(w, r, fe.Field, fe.Message)
			return
		}
		// From here on the approve writes only the fix its approver was shown (fixKey).
		r = body.confirmed(r)
		c, ok := o.Load(w, r, actor.TenantID)
		if !ok {
			return
		}
		if c.Status == syncerror.StatusApplying && c.Applied != nil && c.Lease != nil && c.Lease.ExpiresAt.Before(o.NowUTC()) {
			// The approve that wrote it died before completing: complete it now.
			a := &approval{o: o, w: w, r: r, actor: actor, row: c, lease: *c.Lease, key: c.Applied.Key}
			a.complete(true)
			return
		}
		if leaseEnded(c, o.NowUTC()) {
			var settled syncerror.Outcome
			if c, settled, ok = o.settleEnded(w, r, actor, c); !ok {
				return
			}
			if settled == syncerror.SettledWritten && c.Status == syncerror.StatusApproved {
				o.answerSettledWritten(w, r, c, body.Fix != nil)
				return
			}
		}
		if !syncerror.Decidable(c.Status) || c.Diagnosis != syncerror.DiagnosisReady || c.Proposal == nil || c.Applied != nil {
			conflict(w, r, c, o.NowUTC())
			return
		}
		if !mayDecideEscalated(w, r, actor, c.Status) {
			return
		}
		if syncerror.FlowTargetUnknown(c) {
			// Any record this wrote to would be a guess (flowtarget.go): refused before
			// the lease, the prior read or the write, so nothing is read or written.
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, syncerror.CodeTargetRecordUnknown,
				"The fix cannot be approved: "+syncerror.TargetRecordUnknownReason+"."))
			return
		}
		edited, fe := editedFix(body, c)
		if fe != nil {
			syncerror.WriteFieldError(w, r, fe.Field, fe.Message)
			return
		}
		pend, err := o.PendingApproval(r.Context(), c, edited, body.CoApproval)
		switch {
		case errors.Is(err, policy.ErrCoApprovalChanged):
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, policy.CodeCoApprovalChanged, policy.CoApprovalChangedDetail))
			return
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The approval policy could not be read; nothing was written. Retry shortly.")
			return
		}
		// Without an edit, the row's fix (FixOf): what the detail, the bulk preview and the
		// approval policy said would be written. On a row awaiting a decision that is the
		// AI's, or the edit the row keeps (EditKept): its write was held for an ownership
		// approval, or may have landed, and it is sent again, under the same key, so a
		// released hold lets it through and a write that landed is replayed. But while a
		// two-approver edit waits for its second approval, it is what the detail shows
		// and what this approve approves: it supersedes a kept edit (policy/coapproval.go).
		fix := syncerror.FixOf(c)
		kept := edited == nil && syncerror.EditKept(c) != ""
		if pend.Edit != nil {
			fix, kept = pend.Edit, false
		}
		if edited != nil {
			fix = edited
		}
		if len(fix) == 0 {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnprocessableEntity, "empty_fix",
				"The proposal has no fix to write: send an edited fix, or reject or escalate the sync error."))
			return
		}
		if syncerror.Unconfirmed(r.Context(), c.Proposal.Class, fix) {
			// A bulk approve, or an approve sending the detail's fixKey, whose approver
			// confirmed other values (a waiting two-approver edit included): nothing
			// leased, written or recorded.
			syncerror.WriteFixChanged(w, r)
			return
		}
		// A waiting edit was typed when it was entered, and is approved as it was shown.
		if pend.Edit == nil {
			if fix, ok = o.typedFix(w, r, c, fix); !ok {
				return
			}
		}
		if edited != nil {
			edited = fix
		}
		ap, ok := o.MayApprove(w, r, actor, c, pend, edited, fix)
		if !ok {
			return
		}
		edited, fix = ap.Edited, ap.Fix
		if kept && edited == nil {
			// The kept edit is this write's: the row holds it while applying, and again if
			// this write is held too.
			edited = fix
		}
		a := &approval{o: o, w: w, r: r, actor: actor, fix: fix, key: syncerror.FixKey(c.ID, fix),
			details: map[string]any{"fields": fixPaths(fix), "edited": edited != nil}}
		// The audit says which edit the row kept was written again, or replaced by this
		// approve's own or by the two approvals' edit.
		if k := syncerror.EditKept(c); kept {
			a.details["keptEdit"] = k
		} else if k != "" {
			a.details["supersedes"] = k
		}
		// The approve's entry names the edit: if the write does not happen, the row drops
		// the edit and this entry is where the attempt stays (approveNote).
		if a.begin(c, edited, o.approveNote(r.Context(), body.Note, edited)) && a.handover(ap) {
			a.write()
		}
	})
}

// answerSettledWritten answers an approve that found the last approve's write had landed
// and completed it: the row is approved with that fix. An edit sent with this approve was
// not written, and the answer says so rather than pretend it was.
func (o *Service) answerSettledWritten(w http.ResponseWriter, r *http.Request, c syncerror.Claim, edited bool) {
	if edited {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The approve that stopped at "+c.UpdatedAt.Format(time.RFC3339)+" had written its fix to the host ERP; the sync error "+
				"is now approved with that fix, and your edit was not written."))
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, o.Detail(r.Context(), c))
}

// begin takes the lease; false when it answered already.
func (a *approval) begin(c syncerror.Claim, edited []syncerror.FieldChange, note string) bool {
	ctx, o := a.r.Context(), a.o
	now := o.NowUTC()
	ttl := o.LeaseTTL
	if ttl <= 0 {
		ttl = syncerror.DefaultLeaseTTL
	}
	a.lease = syncerror.NewLease(now, ttl)
	a.lease.From = c.Status
	// The row keeps what this write carries, typed, under its key: the reconcile looks
	// for this write, never one recomputed from the proposal or an earlier edit.
	a.lease.Fix, a.lease.Key = a.fix, a.key
	held, err := o.Claims.BeginApply(ctx, a.actor.TenantID, c.ID, c.Status, a.lease, edited,
		syncerror.HistoryEntry{At: now, Actor: a.actor.Actor, Action: "approve", Note: note}, now)
	switch {
	case errors.Is(err, syncerror.ErrStateChanged):
		if cur, gerr := o.Claims.Get(ctx, a.actor.TenantID, c.ID); gerr == nil {
			conflict(a.w, a.r, cur, o.NowUTC())
			return false
		}
		httpapi.WriteProblem(a.w, a.r, httpapi.NewProblem(http.StatusConflict, "not_pending", "The sync error is not pending."))
		return false
	case errors.Is(err, syncerror.ErrNotFound):
		syncerror.NotFound(a.w, a.r)
		return false
	case err != nil:
		httpapi.WriteUnavailable(a.w, a.r, err, "The queue is unavailable; nothing was written. Retry shortly.")
		return false
	}
	a.row = held
	return true
}

// handover hands a two-approver edit from its co-approval document to the write that now
// holds the lease (policy's Handover); false when it answered. A document that cannot be
// changed gives the lease back unwritten, so the edit and its approvals stay where they
// were and the approver's retry writes it: written while the document still held it, it
// would be written again by the next approve without an edit should this write fail.
func (a *approval) handover(ap policy.Approved) bool {
	ctx, o := a.r.Context(), a.o
	err := retryStore(ctx, func() error { return o.Handover(ctx, a.row, ap) })
	if err == nil {
		return true
	}
	note := "nothing was written: the two approvals could not be handed to the write; approve again"
	if ferr := o.Claims.FinishApply(ctx, a.actor.TenantID, a.row.ID, a.lease.Token, a.lease.Origin(), "",
		syncerror.HistoryEntry{At: o.NowUTC(), Actor: a.actor.Actor, Action: "apply_failed", Note: note}, o.NowUTC()); ferr != nil {
		// The lease expires and the reconcile returns the row: no write was sent.
		httpapi.Logger(ctx).Error("lease not given back after a failed handover; it will expire", "id", a.row.ID, "error", ferr)
	}
	httpapi.WriteUnavailable(a.w, a.r, err, "The approval could not be handed to the write; nothing was written. Retry shortly.")
	return false
}

// write writes the fix through the governed path within the request's deadline less
// WriteReserve, and answers by what came of it.
func (a *approval) write() {
	ctx := a.r.Context()
	wctx, cancel := writeContext(ctx)
	werr := a.priorAndWrite(wctx)
	cancel()
	var partial *syncerror.PartialFixError
	switch {
	case errors.As(werr, &partial):
		a.details["partial"], a.details["dropped"] = true, partial.Dropped
		a.note = "partial: " + partial.Error()
		a.prior = withoutPaths(a.prior, partial.Dropped)
		a.written = syncerror.WithoutPaths(a.fix, partial.Dropped)
		a.applied()
		return
	case werr == nil || errors.Is(werr, syncerror.ErrFixUnrecorded):
		a.written = a.fix
		if werr != nil {
			httpapi.Logger(ctx).Error("fix written but not fully recorded", "id", a.row.ID, "error", werr)
			a.details["recorded"] = false
		}
		a.applied()
		return
	case errors.Is(werr, syncerror.ErrMayHaveApplied):
		a.unsettled(werr)
		return
	}
	a.failed(werr)
}

// pinnedWrites is how many times the approve reads the values its fix replaces and writes
// the fix pinned to the version that read found, before a record that changed between the
// two each time is written over whatever it holds, its values before not kept.
const pinnedWrites = 3

// priorAndWrite reads the values the fix replaces (a.prior, what a revert writes back) and
// writes the fix pinned to the version that read found, so the values kept are the ones
// the fix replaced: an edit between the read and the write (nothing written) is read
// again. The fix itself is vouched for whatever the record holds, so a record that keeps
// changing is written after pinnedWrites tries all the same, without values before: a
// revert of it refuses (prior_unknown) rather than write back what it held some edits ago.
func (a *approval) priorAndWrite(ctx context.Context) error {
	for range pinnedWrites {
		prior, version := a.o.priorValues(ctx, a.row, a.fix)
		a.prior = prior
		werr := a.o.Fixes.WriteFix(ctx, a.actor, a.row, a.fix, a.key, version)
		if version == "" || !errors.Is(werr, syncerror.ErrRecordChanged) {
			return werr
		}
	}
	httpapi.Logger(ctx).Warn("the record changed between each read of its values and the fix's write; written without them, so it cannot be reverted",
		"id", a.row.ID, "tries", pinnedWrites)
	a.prior = nil
	return a.o.Fixes.WriteFix(ctx, a.actor, a.row, a.fix, a.key, "")
}

// unsettled follows a write whose answer was lost: the record may hold the fix. It is
// read back: holding the fix, the approve completes as written; not holding it after the
// target's own answer (a 500 or 503: LostAnswerError.Answered), the write failed as any
// other; otherwise (not read, or not holding it yet: a slow system may still apply it,
// after a timeout or a gateway's 502/504) the row stays applying under
// its lease, and once the lease ends the reconcile reads the record again and completes
// the row or returns it to pending. It is never returned to pending here: the fix may be
// in the record, and a pending row may be rejected, or approved with another fix and
// written twice.
func (a *approval) unsettled(werr error) {
	ctx := a.r.Context()
	httpapi.Logger(ctx).Warn("write-back answer lost; reading the record back", "id", a.row.ID, "error", werr)
	a.details["answerLost"] = true
	// The record is compared with what the write sent: a field the guard left out (owned
	// by another system, or closing a loop) never reaches it.
	rb := a.o.readBack(ctx, a.row, a.fix, werr)
	switch {
	case rb.held:
		a.written, a.note = rb.sent, "the host ERP's answer was lost; the record read back holds the fix"
		if len(rb.left) > 0 {
			a.details["partial"], a.details["dropped"] = true, rb.left
			a.prior = withoutPaths(a.prior, rb.left)
		}
		a.applied()
		return
	case rb.read && rb.answered:
		a.failed(werr)
		return
	}
	a.outcome("unknown")
	httpapi.WriteJSON(a.w, http.StatusAccepted, map[string]any{"id": a.row.ID, "status": syncerror.StatusApplying,
		"message": "The host ERP's answer to the write was lost, so the fix may have been written. The sync error stays applying; " +
			"once its lease ends the reconcile reads the record and completes the approval, or returns the proposal if the fix is not there."})
}

// writeContext bounds the host ERP write so that marking, completing and auditing still
// fit in the request's deadline after it.
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-WriteReserve))
	}
	return context.WithTimeout(ctx, DefaultWriteTimeout)
}

// failed returns the row to pending with why the write did not happen, audits it and
// answers with the reason.
func (a *approval) failed(werr error) {
	ctx := a.r.Context()
	finish := func(applyErr, action string) {
		if err := a.o.Claims.FinishApply(ctx, a.actor.TenantID, a.row.ID, a.lease.Token, a.lease.Origin(), applyErr,
			syncerror.HistoryEntry{At: a.o.NowUTC(), Actor: a.actor.Actor, Action: action, Note: applyErr}, a.o.NowUTC()); err != nil {
			// The lease expires and the reconcile returns the row to pending.
			httpapi.Logger(ctx).Error("finish apply failed; the lease will expire", "id", a.row.ID, "error", err)
		}
	}
	resource := "syncerror/" + a.row.ID
	var refused *syncerror.RefusedError
	var target *syncerror.TargetError
	switch {
	case errors.As(werr, &refused) && refused.Code == syncerror.CodeApprovalRequired:
		// Held, not refused: released, the hold lets this fix through under its key, so
		// the row keeps an edit for the next approve to send again (KeepsEdit).
		finish(refused.Reason, syncerror.ActionApplyHeld)
		a.details["refusal"] = refused.Code
		a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultDenied, resource, a.details)
		a.outcome("refused")
		detail := refused.Reason
		if len(a.row.EditedFix) > 0 {
			detail += ". The edit stays on the sync error: approving it again without a change writes it."
		}
		httpapi.WriteProblem(a.w, a.r, httpapi.NewProblem(refused.Status, refused.Code, detail))
	case errors.As(werr, &refused):
		finish(refused.Reason, "apply_refused")
		a.details["refusal"] = refused.Code
		a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultDenied, resource, a.details)
		a.outcome("refused")
		httpapi.WriteProblem(a.w, a.r, httpapi.NewProblem(refused.Status, refused.Code, refused.Reason))
	case errors.Is(werr, syncerror.ErrWriterNotConfigured):
		finish("the host ERP connector is not configured", "apply_failed")
		a.details["error"] = "connector_not_configured"
		a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultFailure, resource, a.details)
		a.outcome("failed")
		httpapi.WriteProblem(a.w, a.r, httpapi.NewProblem(http.StatusServiceUnavailable, "connector_not_configured",
			"The tenant has no host ERP connector; nothing was written and the proposal is "+string(a.lease.Origin())+" again."))
	case errors.As(werr, &target):
		httpapi.Logger(ctx).Error("write-back failed", "id", a.row.ID, "error", werr)
		finish(target.Reason, "apply_failed")
		a.details["error"], a.details["targetCode"], a.details["targetStatus"] = "write_back_failed", target.Target.Code, target.Target.Status
		a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultFailure, resource, a.details)
		a.outcome("failed")
		p := httpapi.NewProblem(http.StatusBadGateway, "write_back_failed", "The target system did not accept the fix: "+target.Reason+". The proposal is "+string(a.lease.Origin())+" again.")
		t := target.Target
		p.Target = &t
		httpapi.WriteProblem(a.w, a.r, p)
	default:
		httpapi.Logger(ctx).Error("write-back failed", "id", a.row.ID, "error", werr)
		finish("the host ERP write failed; retry the approve", "apply_failed")
		a.details["error"] = "write_back_failed"
		a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultFailure, resource, a.details)
		a.outcome("failed")
		httpapi.WriteProblem(a.w, a.r, httpapi.NewProblem(http.StatusBadGateway, "write_back_failed",
			"The host ERP did not accept the fix; the proposal is "+string(a.lease.Origin())+" again with the error recorded."))
	}
}

// outcome counts the approve's outcome for the dashboard (Approves by feature and outcome).
func (a *approval) outcome(o string) {
	emf.Emit(emf.Metric{Time: a.o.NowUTC(), Dimensions: []string{"feature", "outcome"}, Counts: map[string]float64{"Approves": 1},
		Fields: map[string]any{"feature": "syncerror", "outcome": o, "tenant": a.actor.TenantID}})
}

// applied follows a write that reached the host ERP: audit the approve as a success (it
// is one, whatever follows), then mark the row applied and complete it.
//
// Marking and completing are one write (CompleteApply) when it lands: two, the second
// rewrote the row and its by_status entry once more (issue 37 §1). When it does not land
// (the table throttled through its retries), complete stores the marker alone, with
// retries of its own, as before: a row left applying is then marked, so no later approve
// writes it again (a takeover with an edit would carry another idempotency key) and the
// reconcile completes it; and a row the marker missed too is completed by the reconcile
// from the guard's write ledger, as before.
func (a *approval) applied() {
	ctx := a.r.Context()
	a.o.WriteAudit(ctx, a.actor, "syncerror.approve", audit.ResultSuccess, "syncerror/"+a.row.ID, a.details)
	a.outcome("written")
	a.complete(false)
}

// complete ends the applying row approved (a fresh approve's also marked applied, a
// takeover's marked already) and answers the truth: the approved row; the winner's state
// when the row changed meanwhile; or, when the queue could not record it, 202 saying that
// the fix was written and the reconcile completes the approval.
func (a *approval) complete(takeover bool) {
	ctx, o := a.r.Context(), a.o
	note := a.note
	if takeover {
		note = "completed after the approve that wrote the fix stopped"
	}
	// RevertsMarked: this version's revert marks the row before it sends (revertmark.go).
	mark := syncerror.AppliedWrite{Key: a.key, At: o.NowUTC(), Prior: a.prior, Fix: a.written, RevertsMarked: true}
	var cur syncerror.Claim // the row as the completion left it, when it says
	err := retryStore(ctx, func() (err error) {
		entry := syncerror.HistoryEntry{At: o.NowUTC(), Actor: a.actor.Actor, Action: "approved", Note: note}
		if takeover {
			return o.Claims.FinishApply(ctx, a.actor.TenantID, a.row.ID, a.lease.Token, syncerror.StatusApproved, "", entry, o.NowUTC())
		}
		cur, err = o.Claims.CompleteApply(ctx, a.actor.TenantID, a.row.ID, a.lease.Token, mark, entry, o.NowUTC())
		return err
	})
	if !takeover && err != nil && !errors.Is(err, syncerror.ErrStateChanged) {
		a.markOnly(mark)
	}
	if takeover && err == nil {
		o.WriteAudit(ctx, a.actor, "syncerror.approve_completed", audit.ResultSuccess, "syncerror/"+a.row.ID,
			map[string]any{"idempotencyKey": a.key})
	}
	var gerr error
	if err != nil || takeover {
		cur, gerr = o.Claims.Get(ctx, a.actor.TenantID, a.row.ID)
	}
	switch {
	case err == nil || errors.Is(err, syncerror.ErrStateChanged) && gerr == nil && cur.Status == syncerror.StatusApproved:
		if err == nil && !takeover {
			o.LearnDecision(ctx, a.row, a.fix, policy.Verdict{Approved: true, Actor: a.actor.Actor, At: o.NowUTC()})
			o.CountResolved(a.row, a.actor.Actor)
		}
		if gerr != nil {
			httpapi.WriteJSON(a.w, http.StatusOK, map[string]any{"id": a.row.ID, "status": syncerror.StatusApproved})
			return
		}
		httpapi.WriteJSON(a.w, http.StatusOK, o.Detail(ctx, cur))
	case errors.Is(err, syncerror.ErrStateChanged) && gerr == nil:
		httpapi.Logger(ctx).Error("the row changed after its fix was written", "id", a.row.ID, "status", cur.Status)
		p := httpapi.NewProblem(http.StatusConflict, "state_changed", "The fix was written to the host ERP, but the "+
			"sync error changed meanwhile and is now "+string(cur.Status)+".")
		httpapi.WriteProblem(a.w, a.r, p)
	default:
		httpapi.Logger(ctx).Error("approval written but not completed", "id", a.row.ID, "error", err)
		httpapi.WriteJSON(a.w, http.StatusAccepted, map[string]any{"id": a.row.ID, "status": syncerror.StatusApplying, "applied": true,
			"message": "The fix was written to the host ERP; recording the approval failed and the reconcile completes it."})
	}
}

// markOnly stores the applied marker on the row whose completion did not land, so that
// the row left applying says its fix was written (see applied).
func (a *approval) markOnly(mark syncerror.AppliedWrite) {
	ctx := a.r.Context()
	if err := retryStore(ctx, func() error {
		return a.o.Claims.MarkApplied(ctx, a.actor.TenantID, a.row.ID, a.lease.Token, mark, a.o.NowUTC())
	}); err != nil {
		// The write's ledger entry tells the reconcile.
		httpapi.Logger(ctx).Error("applied marker not stored", "id", a.row.ID, "error", err)
	}
}

// retryStore retries a conditional write of the queue while it fails for a reason other
// than the row's state.
func retryStore(ctx context.Context, op func() error) error {
	return retry.Store(ctx, op, func(err error) bool {
		return errors.Is(err, syncerror.ErrStateChanged) || errors.Is(err, syncerror.ErrNotFound)
	})
}
