package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"

	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// RevertWindow is how long after its write a fix may be reverted.
const RevertWindow = 24 * time.Hour

// RevertHandler serves POST /api/sync-error-assist/proposals/{id}/revert (approver). It
// writes back what the record held before the fix, as read from it at apply time
// (AppliedWrite.Prior; a field it did not have is cleared), through the guarded write,
// only where the record still holds the fix's values (409 changed_since otherwise; the
// write is pinned to the version that read found, so a change landing between the read
// and the write is not written over either), and marks the row reverted; the revert is
// learned as a rejection of the fix. It never writes the "before" a webhook payload or a
// proposal claimed: without the values read at apply time it refuses (409 prior_unknown). Before it sends, it marks the row
// (revertmark.go); a row it cannot mark is answered 503 with nothing sent.
func (o *Service) RevertHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok || !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body struct {
			Reason string `json:"reason"`
		}
		if !syncerror.ReadJSON(w, r, &body, true) {
			return
		}
		if len(body.Reason) > 1000 {
			syncerror.WriteFieldError(w, r, "reason", "must be at most 1000 characters")
			return
		}
		if o.Assist == nil || o.Assist.Reader == nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "revert_unavailable", "Revert is not configured."))
			return
		}
		c, ok := o.Load(w, r, actor.TenantID)
		if !ok {
			return
		}
		heldAt, ok := o.revertHeldAt(w, r, c)
		if !ok || !revertible(w, r, c, o.NowUTC(), heldAt) {
			return
		}
		ctx := r.Context()
		current, version, err := o.Assist.Reader.ReadFields(ctx, c)
		if errors.Is(err, syncerror.ErrWriterNotConfigured) {
			// As the approve answers it: a setting to fix, not a system that failed.
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "connector_not_configured",
				"The tenant has no connector for the system the fix was written to; nothing was reverted and the row stays approved."))
			return
		}
		if err != nil {
			httpapi.Logger(ctx).Error("revert: record unreadable", "id", c.ID, "error", err)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadGateway, "record_unreadable",
				"The record could not be read to check it still holds the fix; nothing was written."))
			return
		}
		var changed []string
		for _, p := range c.Applied.Prior {
			if now, _ := syncerror.FieldAt(current, p.Path); !syncerror.SameHeld(now, p.Wrote) {
				changed = append(changed, p.Path)
			}
		}
		// The fix the approve wrote, as written: not the proposal, nor an abandoned edit.
		fix := syncerror.WrittenFix(c)
		// Built and keyed in one place: a retry looks this write up in the guard's ledger
		// under the same key (syncerror.RevertKey), to not write the fix over it.
		back := syncerror.RevertChanges(c)
		details := map[string]any{"fields": fixPaths(back), "before": fix, "after": back, "reason": body.Reason}
		// The record already holds every value from before the fix: an earlier revert
		// written but not recorded (its 202), or the same values set in the host ERP.
		held := len(changed) > 0 && syncerror.RecordHolds(current, back)
		if len(changed) > 0 && !held {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "changed_since",
				"The record changed since the fix was written ("+strings.Join(changed, ", ")+"); nothing was reverted."))
			return
		}
		// The row is marked before anything is sent, or recorded as reverted: whatever
		// records the revert after its write may fail, and a retry then tells the revert
		// from a lost fix by the mark (revertmark.go).
		mark := syncerror.NewRevertMark(o.NowUTC())
		if !o.markRevertSent(w, r, c, mark) {
			return
		}
		if held {
			// Nothing to write; the row says what the record does.
			details["written"] = false
			o.reverted(w, r, actor, c, fix, body.Reason, "nothing written: the record already held the values before the fix", details)
			return
		}
		o.sendRevert(w, r, actor, c, mark, revertText{fix: fix, back: back, reason: body.Reason, version: version, details: details})
	})
}

// revertText is what a revert writes and says: the fix it takes back, the values it
// writes back, the approver's reason, the record's version its check read (the write is
// pinned to it) and the audit record's details.
type revertText struct {
	fix, back       []syncerror.FieldChange
	reason, version string
	details         map[string]any
}

// sendRevert writes the values before the fix back through the guarded write and answers
// by what came of it. A revert known not to have landed (refused, no connector, the host
// ERP's own error) removes its mark; one that landed, in part or whole, or whose answer
// was lost, leaves it.
func (o *Service) sendRevert(w http.ResponseWriter, r *http.Request, actor identity.Identity, c syncerror.Claim, mark syncerror.RevertMark, t revertText) {
	ctx := r.Context()
	details := t.details
	wctx, cancel := writeContext(ctx)
	werr := o.Fixes.WriteFix(wctx, actor, c, t.back, syncerror.RevertKey(c), t.version)
	cancel()
	notLanded := func(result string, p *httpapi.Problem) {
		o.clearRevertSent(ctx, c, mark)
		o.WriteAudit(ctx, actor, syncerror.AuditRevert, result, "syncerror/"+c.ID, details)
		httpapi.WriteProblem(w, r, p)
	}
	failed := func() {
		httpapi.Logger(ctx).Error("revert write failed", "id", c.ID, "error", werr)
		notLanded(audit.ResultFailure, httpapi.NewProblem(http.StatusBadGateway, "write_back_failed",
			"The host ERP did not accept the revert; the row stays approved."))
	}
	how := "" // a revert written otherwise than whole and answered, said in its history
	var refused *syncerror.RefusedError
	var partial *syncerror.PartialFixError
	switch {
	case errors.As(werr, &refused):
		details["refusal"] = refused.Code
		notLanded(audit.ResultDenied, httpapi.NewProblem(refused.Status, refused.Code, refused.Reason))
		return
	case errors.Is(werr, syncerror.ErrRecordChanged):
		details["changedSince"] = true
		notLanded(audit.ResultFailure, httpapi.NewProblem(http.StatusConflict, "changed_since",
			"The record changed while the revert was being written; nothing was reverted. Open the record, and revert again if it still holds the fix."))
		return
	case errors.Is(werr, syncerror.ErrWriterNotConfigured):
		notLanded(audit.ResultFailure, httpapi.NewProblem(http.StatusServiceUnavailable, "connector_not_configured",
			"The tenant has no connector for the system the fix was written to; nothing was reverted and the row stays approved."))
		return
	case errors.As(werr, &partial):
		// Written, without fields the ownership manifest now gives another system: the
		// revert is in the record, those fields still hold the fix, and the row says so.
		details["partial"], details["dropped"] = true, partial.Dropped
		how = "partial: the values before the fix were written back without fields owned by another system, which still hold the fix: " +
			strings.Join(partial.Dropped, ", ")
	case errors.Is(werr, syncerror.ErrMayHaveApplied):
		// Settled as the approve settles its own write (readBack): never reported as
		// failed while the record may hold it.
		details["answerLost"] = true
		rb := o.readBack(ctx, c, t.back, werr)
		switch {
		case rb.held:
			how = "the host ERP's answer was lost; the record read back holds the values before the fix"
			if len(rb.left) > 0 {
				details["partial"], details["dropped"] = true, rb.left
				how += ", without fields owned by another system, which still hold the fix: " + strings.Join(rb.left, ", ")
			}
		case rb.read && rb.answered:
			failed() // the host ERP answered, and the record does not hold the revert
			return
		default:
			o.revertUnsettled(w, r, actor, c, details)
			return
		}
	case werr != nil && !errors.Is(werr, syncerror.ErrFixUnrecorded):
		failed()
		return
	}
	o.reverted(w, r, actor, c, t.fix, t.reason, how, details)
}

// revertUnsettled answers a revert whose answer was lost and which the record read back
// does not settle (not read, or not holding it yet: a request without an answer may still
// land). The row stays approved: nothing says the revert is in the record. Its mark stays
// on the row (revertmark.go; a later revert that fails takes back only its own), and its
// own audit record (syncerror.AuditRevertUnsettled) is written for the rows a retry still
// asks the audit log about: either tells a retry that finds the record holding what the
// revert sent that it landed late, so the fix is not written over it; while the mark
// stays, a retry that finds the record still holding the fix re-runs nothing with it
// either (RETRY_REVERT_PENDING), as the revert may land after.
func (o *Service) revertUnsettled(w http.ResponseWriter, r *http.Request, actor identity.Identity, c syncerror.Claim, details map[string]any) {
	ctx := r.Context()
	httpapi.Logger(ctx).Warn("revert answer lost and not settled", "id", c.ID)
	o.WriteAudit(ctx, actor, syncerror.AuditRevertUnsettled, audit.ResultFailure, "syncerror/"+c.ID, details)
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadGateway, "revert_unsettled",
		"The host ERP's answer to the revert was lost, so the values before the fix may have been written back; the record could not "+
			"be read back to tell. The row stays approved. Check the record, or revert again: the same write is sent under the same key, "+
			"and nothing is written where the record no longer holds the fix."))
}

// revertHeldAt is when c's revert was first held for an ownership approval (zero: never,
// or the window is still open and it does not matter). A revert held is released by retry:
// its release only approves it, and the next revert writes it. An approver may release it
// after the window closed; that revert was asked in time, and the guard's hold, stored
// when it was asked, says so durably. So the window is judged at the hold's time: the
// person can revert again and the released revert is written, checked against the record
// as any revert (changed_since). Writing it at the release instead would have the
// governance approver's click write a revert the row's own checks (the revert mark, the
// record still holding the fix) never saw. false when it answered (503: the holds could
// not be read).
func (o *Service) revertHeldAt(w http.ResponseWriter, r *http.Request, c syncerror.Claim) (time.Time, bool) {
	held, ok := o.Fixes.(syncerror.HeldWrites)
	if !ok || c.Applied == nil || o.NowUTC().Sub(c.Applied.At) <= RevertWindow || len(syncerror.WrittenFix(c)) == 0 {
		return time.Time{}, true
	}
	at, found, err := held.HeldSince(r.Context(), c, syncerror.RevertKey(c))
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "Whether this revert was asked within its 24 hours could not be checked; nothing was "+
			"reverted. Revert again shortly.")
		return time.Time{}, false
	}
	if !found {
		return time.Time{}, true
	}
	return at, true
}

// revertible answers 409 unless c is an approved row whose fix was written within the
// window with the record's values before it read and kept. heldAt, when set, is when the
// revert was first asked and held for an ownership approval (revertHeldAt): the window is
// judged at that time.
func revertible(w http.ResponseWriter, r *http.Request, c syncerror.Claim, now time.Time, heldAt time.Time) bool {
	var withheld []string
	if c.Applied != nil {
		for _, p := range c.Applied.Prior {
			if p.Withheld {
				withheld = append(withheld, p.Path)
			}
		}
	}
	switch {
	case c.Status != syncerror.StatusApproved || c.Applied == nil || len(syncerror.WrittenFix(c)) == 0:
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "not_revertible",
			"Only an approved sync error whose fix was written can be reverted; this one is "+string(c.Status)+"."))
	case now.Sub(c.Applied.At) > RevertWindow && (heldAt.IsZero() || heldAt.Sub(c.Applied.At) > RevertWindow):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "revert_window_closed",
			"The fix was written at "+c.Applied.At.Format(time.RFC3339)+"; it can be reverted for 24 hours only."))
	case len(c.Applied.Prior) == 0:
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "prior_unknown",
			"The record's values before the fix were not read when it was written, so there is nothing true to restore; "+
				"nothing was reverted. Correct the record in its system."))
	case len(withheld) > 0:
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "prior_unknown",
			"The record's values before the fix in "+strings.Join(withheld, ", ")+" are secrets, card numbers or national "+
				"ids, which are not kept; nothing was reverted. Correct the record in its system."))
	default:
		return true
	}
	return false
}

// priorValues reads what the record holds in the fix's fields just before the fix is
// written, from the system the fix is written to, within MetadataWait (the write keeps
// the rest of its time), and the record's version then, which the write is pinned to
// (approval.priorAndWrite). nil when it cannot be read: the write goes ahead (it reads the
// record itself, and fails if the system is down), and a revert of it later refuses
// rather than guess.
func (o *Service) priorValues(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange) ([]syncerror.PriorValue, string) {
	current, version, ok := o.readRecord(ctx, c, "the record's values before the fix not read; it cannot be reverted")
	if !ok {
		return nil, ""
	}
	out := make([]syncerror.PriorValue, 0, len(fix))
	for _, ch := range fix {
		p := syncerror.PriorValue{Path: ch.Path, Wrote: ch.After}
		v, present := syncerror.FieldAt(current, ch.Path)
		switch {
		case !present:
			p.Absent = true
		case policy.Learnable(ch.Path, v) != nil:
			// Kept at rest under the stored-data policy, like everything of a row.
			p.Withheld = true
		default:
			p.Value = v
		}
		out = append(out, p)
	}
	return out, version
}

func withoutPaths(prior []syncerror.PriorValue, drop []string) []syncerror.PriorValue {
	out := prior[:0:0]
	for _, p := range prior {
		if !slices.Contains(drop, p.Path) {
			out = append(out, p)
		}
	}
	return out
}

// reverted records a revert that was written: the row, the audit, the knowledge.
// how, when not "", says how the revert was written otherwise than whole and answered
// (part of it, or its answer lost and the record read back); the row's history keeps it.
func (o *Service) reverted(w http.ResponseWriter, r *http.Request, id identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, reason, how string, details map[string]any) {
	// The revert is in the record: what records it must not end with the request (a
	// client gone, the write's deadline), or a retry a day later would find no trace of it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), WriteReserve)
	defer cancel()
	now, actor := o.NowUTC(), id.Actor
	note := "reverted"
	if reason != "" {
		note = reason
	}
	entry := reason
	switch {
	case how != "" && reason != "":
		entry = reason + " (" + how + ")"
	case how != "":
		entry = how
	}
	err := retryStore(ctx, func() error {
		return o.Assist.Store.MarkReverted(ctx, c.TenantID, c.ID, syncerror.HistoryEntry{At: now, Actor: actor, Action: "reverted", Note: entry}, now)
	})
	o.WriteAudit(ctx, id, syncerror.AuditRevert, audit.ResultSuccess, "syncerror/"+c.ID, details)
	o.LearnDecision(ctx, c, fix, policy.Verdict{Actor: actor, Reason: "reverted: " + note, At: now})
	o.Assist.SetOutcome(ctx, c, now, func(a *syncerror.Automation) bool {
		a.Outcome, a.DecidedBy, a.DecidedAt = syncerror.OutcomeReverted, actor, &now
		return true
	})
	class := ""
	if c.Proposal != nil {
		class = c.Proposal.Class
	}
	emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature", "class"}, Counts: map[string]float64{"Reverted": 1},
		Fields: map[string]any{"feature": "syncerror", "class": class, "tenant": c.TenantID}})
	if errors.Is(err, syncerror.ErrStateChanged) {
		// A first try that landed with its answer lost refuses its retry: the row says.
		if cur, gerr := o.Claims.Get(ctx, c.TenantID, c.ID); gerr == nil && cur.Status == syncerror.StatusReverted {
			err = nil
		}
	}
	switch {
	case errors.Is(err, syncerror.ErrStateChanged), errors.Is(err, syncerror.ErrNotFound):
		httpapi.Logger(ctx).Error("revert written but the row changed meanwhile", "id", c.ID, "error", err)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The values before the fix were written back, but the sync error changed meanwhile."))
		return
	case err != nil:
		// The revert is in the record: never reported as failed. The row still says
		// approved; a second revert finds the record no longer holds the fix and refuses.
		httpapi.Logger(ctx).Error("revert written but the row not marked", "id", c.ID, "error", err)
		httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"id": c.ID, "status": c.Status, "reverted": true,
			"message": "The values before the fix were written back to the record, but the queue could not record it, " +
				"so the sync error still shows " + string(c.Status) + ". Nothing more needs doing: reverting again marks it reverted without writing, and a retry finds the revert and writes nothing."})
		return
	}
	cur, gerr := o.Claims.Get(ctx, c.TenantID, c.ID)
	if gerr != nil {
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": c.ID, "status": syncerror.StatusReverted})
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, o.Detail(ctx, cur))
}
