package syncerror

import (
	"errors"
	"net/http"
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
// writes the values before the fix back through the guarded write, only where the record
// still holds the fix's values (409 changed_since otherwise), and marks the row reverted;
// the revert is learned as a rejection of the fix.
func (o *Operator) RevertHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := who(w, r)
		if !ok || !featureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body struct {
			Reason string `json:"reason"`
		}
		if !readJSON(w, r, &body, true) {
			return
		}
		if len(body.Reason) > 1000 {
			writeFieldError(w, r, "reason", "must be at most 1000 characters")
			return
		}
		if o.Assist == nil || o.Assist.Reader == nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "revert_unavailable", "Revert is not configured."))
			return
		}
		c, ok := o.load(w, r, actor.TenantID)
		if !ok {
			return
		}
		fix := fixOf(c)
		switch {
		case c.Status != StatusApproved || c.Applied == nil || len(fix) == 0:
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "not_revertible",
				"Only an approved sync error whose fix was written can be reverted; this one is "+string(c.Status)+"."))
			return
		case o.now().Sub(c.Applied.At) > RevertWindow:
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "revert_window_closed",
				"The fix was written at "+c.Applied.At.Format(time.RFC3339)+"; it can be reverted for 24 hours only."))
			return
		}
		ctx := r.Context()
		current, err := o.Assist.Reader.ReadFields(ctx, c)
		if err != nil {
			httpapi.Logger(ctx).Error("revert: record unreadable", "id", c.ID, "error", err)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadGateway, "record_unreadable",
				"The record could not be read to check it still holds the fix; nothing was written."))
			return
		}
		var changed []string
		back := make([]FieldChange, 0, len(fix))
		for _, ch := range fix {
			if !sameValue(current[ch.Path], ch.After) {
				changed = append(changed, ch.Path)
			}
			back = append(back, FieldChange{Path: ch.Path, Before: ch.After, After: ch.Before})
		}
		if len(changed) > 0 {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "changed_since",
				"The record changed since the fix was written ("+strings.Join(changed, ", ")+"); nothing was reverted."))
			return
		}
		wctx, cancel := writeContext(ctx)
		werr := o.Fixes.WriteFix(wctx, actor, c, back, FixKey(c.ID+"-revert", back))
		cancel()
		details := map[string]any{"fields": fixPaths(fix), "before": fix, "after": back, "reason": body.Reason}
		var refused *RefusedError
		switch {
		case errors.As(werr, &refused):
			details["refusal"] = refused.Code
			o.audit(ctx, actor, "syncerror.revert", audit.ResultDenied, "syncerror/"+c.ID, details)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(refused.Status, refused.Code, refused.Reason))
			return
		case werr != nil && !errors.Is(werr, ErrFixUnrecorded):
			httpapi.Logger(ctx).Error("revert write failed", "id", c.ID, "error", werr)
			o.audit(ctx, actor, "syncerror.revert", audit.ResultFailure, "syncerror/"+c.ID, details)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadGateway, "write_back_failed",
				"The host ERP did not accept the revert; the row stays approved."))
			return
		}
		o.reverted(w, r, actor, c, fix, body.Reason, details)
	})
}

// reverted records a revert that was written: the row, the audit, the knowledge.
func (o *Operator) reverted(w http.ResponseWriter, r *http.Request, id identity.Identity, c Claim, fix []FieldChange, reason string, details map[string]any) {
	ctx, now, actor := r.Context(), o.now(), id.Actor
	note := "reverted"
	if reason != "" {
		note = reason
	}
	err := retryStore(ctx, func() error {
		return o.Assist.Store.MarkReverted(ctx, c.TenantID, c.ID, HistoryEntry{At: now, Actor: actor, Action: "reverted", Note: reason}, now)
	})
	o.audit(ctx, id, "syncerror.revert", audit.ResultSuccess, "syncerror/"+c.ID, details)
	o.learnDecision(ctx, c, fix, Verdict{Actor: actor, Reason: "reverted: " + note, At: now})
	o.Assist.setOutcome(ctx, c, now, func(a *Automation) bool {
		a.Outcome, a.DecidedBy, a.DecidedAt = OutcomeReverted, actor, &now
		return true
	})
	class := ""
	if c.Proposal != nil {
		class = c.Proposal.Class
	}
	emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature", "class"}, Counts: map[string]float64{"Reverted": 1},
		Fields: map[string]any{"feature": "syncerror", "class": class, "tenant": c.TenantID}})
	if err != nil {
		httpapi.Logger(ctx).Error("revert written but the row not marked", "id", c.ID, "error", err)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The values before the fix were written back, but the sync error changed meanwhile."))
		return
	}
	cur, gerr := o.Claims.Get(ctx, c.TenantID, c.ID)
	if gerr != nil {
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": c.ID, "status": StatusReverted})
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, o.detail(cur))
}
