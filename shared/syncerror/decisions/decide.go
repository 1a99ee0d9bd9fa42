package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"

	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

type reasonBody struct {
	Reason string `json:"reason"`
}

// mayDecideEscalated refuses (403) a decision on an escalated row by someone without the
// approver role: escalating hands a row on to an approver.
func mayDecideEscalated(w http.ResponseWriter, r *http.Request, actor identity.Identity, s syncerror.Status) bool {
	if s != syncerror.StatusEscalated || actor.HasRole(identity.RoleApprover) {
		return true
	}
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, "escalated_needs_approver",
		"This sync error was escalated: an approver approves or rejects it. You can still retry or resolve it."))
	return false
}

// conflict explains why a row is not in a state the operation needs.
func conflict(w http.ResponseWriter, r *http.Request, c syncerror.Claim, now time.Time) {
	var p *httpapi.Problem
	switch {
	case c.Status == syncerror.StatusApplying && c.Applied != nil:
		p = httpapi.NewProblem(http.StatusConflict, "erp_applied", "The fix was written to the host ERP at "+
			c.Applied.At.Format(time.RFC3339)+"; its approval is being completed and it can no longer be rejected or changed.")
	case c.Status == syncerror.StatusApplying && c.Lease != nil && c.Lease.ExpiresAt.Before(now):
		p = httpapi.NewProblem(http.StatusConflict, "lease_expired", "The last approve stopped at "+
			c.Lease.ExpiresAt.Format(time.RFC3339)+" before it finished; its outcome is being settled (the reconcile runs "+
			"every 30 minutes), and the sync error is then approved or "+string(c.Lease.Origin())+" again.")
	case c.Status == syncerror.StatusApplying && c.Lease != nil:
		p = httpapi.NewProblem(http.StatusConflict, "lease_held", "Another approve is writing this fix back right now; its lease ends at "+
			c.Lease.ExpiresAt.Format(time.RFC3339)+".")
	case c.Status == syncerror.StatusApplying:
		p = httpapi.NewProblem(http.StatusConflict, "lease_held", "Another approve is writing this fix back right now.")
	case syncerror.Decidable(c.Status) && c.Applied != nil:
		// A row an earlier version's retry returned to pending after its fix was written:
		// the record holds the fix, so it is never approved again nor rejected.
		p = httpapi.NewProblem(http.StatusConflict, "fix_applied", "The fix was written to the host ERP at "+
			c.Applied.At.Format(time.RFC3339)+" and an attempt to re-run the sync failed since; it cannot be approved again or "+
			"rejected. Retry it to re-run the sync with that fix, or resolve it if the record is right now.")
	case !syncerror.Decidable(c.Status):
		p = httpapi.NewProblem(http.StatusConflict, "not_pending", "The sync error is "+string(c.Status)+", not pending or escalated.")
	default:
		p = httpapi.NewProblem(http.StatusConflict, "no_proposal", "The diagnosis is "+string(c.Diagnosis)+"; there is no proposal to approve yet.")
	}
	httpapi.WriteProblem(w, r, p)
}

// RejectHandler serves POST /api/sync-error-assist/proposals/{id}/reject.
func (o *Service) RejectHandler() http.Handler {
	return o.decide(syncerror.StatusRejected, "rejected", "syncerror.reject")
}

// EscalateHandler serves POST /api/sync-error-assist/proposals/{id}/escalate.
func (o *Service) EscalateHandler() http.Handler {
	return o.decide(syncerror.StatusEscalated, "escalated", "syncerror.escalate")
}

func (o *Service) decide(to syncerror.Status, action, key string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		if !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body reasonBody
		if !syncerror.ReadJSON(w, r, &body, false) {
			return
		}
		if n := utf8.RuneCountInString(strings.TrimSpace(body.Reason)); n == 0 || n > 1000 {
			syncerror.WriteFieldError(w, r, "reason", "is required, at most 1000 characters")
			return
		}
		ctx := r.Context()
		id := r.PathValue("id")
		if !syncerror.ValidClaimID(id) {
			syncerror.NotFound(w, r)
			return
		}
		row, err := o.Claims.Get(ctx, actor.TenantID, id)
		if err == nil && leaseEnded(row, o.NowUTC()) {
			// Settled first: a write that landed is approved, and cannot be rejected.
			if row, _, ok = o.settleEnded(w, r, actor, row); !ok {
				return
			}
		}
		switch {
		case errors.Is(err, syncerror.ErrNotFound):
			syncerror.NotFound(w, r)
			return
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
			return
		case row.Status == syncerror.StatusEscalated && to == syncerror.StatusEscalated:
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "not_pending", "The sync error is escalated already."))
			return
		case !syncerror.Decidable(row.Status) || row.Applied != nil:
			conflict(w, r, row, o.NowUTC())
			return
		case !mayDecideEscalated(w, r, actor, row.Status):
			return
		}
		now := o.NowUTC()
		err = o.Claims.Decide(ctx, actor.TenantID, id, row.Status, to, syncerror.HistoryEntry{At: now, Actor: actor.Actor, Action: action, Note: body.Reason}, now)
		switch {
		case errors.Is(err, syncerror.ErrNotFound):
			syncerror.NotFound(w, r)
			return
		case errors.Is(err, syncerror.ErrStateChanged):
			if cur, gerr := o.Claims.Get(ctx, actor.TenantID, id); gerr == nil {
				conflict(w, r, cur, o.NowUTC())
				return
			}
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "not_pending", "The sync error is not pending."))
			return
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
			return
		}
		o.WriteAudit(ctx, actor, key, audit.ResultSuccess, "syncerror/"+id, map[string]any{"reason": body.Reason})
		cur, err := o.Claims.Get(ctx, actor.TenantID, id)
		if err == nil && to == syncerror.StatusRejected {
			o.LearnDecision(ctx, cur, syncerror.FixOf(cur), policy.Verdict{Actor: actor.Actor, Reason: body.Reason, At: now})
		}
		if err != nil {
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": to})
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, o.Detail(ctx, cur))
	})
}
