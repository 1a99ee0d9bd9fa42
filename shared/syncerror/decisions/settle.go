package decisions

import (
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// settleEnded settles the row's ended lease (an approve that stopped mid-write, its
// lease expired) before a decision on it, as the reconcile would (syncerror.LeaseSettler):
// the person who decides gets an answer now, not after the next reconcile. It returns the
// row as it is after, and what became of the lease; false when it answered already: the
// outcome cannot be read yet (409 lease_expired, saying when it will be settled), or the
// queue failed.
func (o *Service) settleEnded(w http.ResponseWriter, r *http.Request, actor identity.Identity, c syncerror.Claim) (syncerror.Claim, syncerror.Outcome, bool) {
	ctx := r.Context()
	s, err := syncerror.LeaseSettler{Claims: o.Claims, Evidence: o.Evidence}.Settle(ctx, c, actor.Actor, o.NowUTC())
	switch {
	case errors.Is(err, syncerror.ErrStateChanged):
		s.Outcome = "" // another settle or a late completion: the row says what it is now
	case err != nil:
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; nothing was written. Retry shortly.")
		return c, "", false
	}
	l := c.Lease
	details := map[string]any{"leaseExpiredAt": l.ExpiresAt}
	if s.Write.Key != "" {
		details["idempotencyKey"] = s.Write.Key
	}
	resource := "syncerror/" + c.ID
	switch s.Outcome {
	case syncerror.SettleWaiting:
		httpapi.Logger(ctx).Warn("ended lease not settled: its outcome cannot be read", "id", c.ID, "error", s.Err)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "lease_expired",
			"The last approve of this sync error stopped at "+l.ExpiresAt.Format(time.RFC3339)+" before it knew whether the "+
				"target system took the fix, and that cannot be checked now (the record or the write ledger could not be read). "+
				"Nothing was written now. The reconcile checks again every 30 minutes; if it still cannot tell by "+
				l.ExpiresAt.Add(syncerror.UnverifiedAfter).Format(time.RFC3339)+", the proposal returns to "+string(l.Origin())+
				" marked unverified."))
		return c, "", false
	}
	if action, result, ok := s.Outcome.Audit(); ok {
		o.WriteAudit(ctx, actor, action, result, resource, details)
	}
	cur, err := o.Claims.Get(ctx, actor.TenantID, c.ID)
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
		return c, "", false
	}
	return cur, s.Outcome, true
}

// leaseEnded reports whether c is applying under a lease that expired before now with no
// write marked applied: an approve stopped mid-write, whose outcome settleEnded settles.
func leaseEnded(c syncerror.Claim, now time.Time) bool {
	return c.Status == syncerror.StatusApplying && c.Applied == nil && c.Lease != nil && c.Lease.ExpiresAt.Before(now)
}
