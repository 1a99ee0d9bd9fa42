package decisions

import (
	"context"
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

// readBack is what a write whose answer was lost (syncerror.ErrMayHaveApplied) is
// settled by, for the approve's fix and the revert's values alike: the record read back
// within MetadataWait and compared with what the write sent (fix without the fields the
// guard left out, which never reach the record). held says the record holds it: the write
// landed. answered says the target's last answer was its own (a 500 or 503), so a record
// read back without it means the write failed; without an answer (a timeout, a gateway's
// 502 or 504) it may still land after the read. read is false when there is no reader or
// the record could not be read: nothing can be told.
type readBack struct {
	sent                 []syncerror.FieldChange
	left                 []string
	held, answered, read bool
}

func (o *Service) readBack(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange, werr error) readBack {
	rb := readBack{sent: fix}
	if lost := (*syncerror.LostAnswerError)(nil); errors.As(werr, &lost) {
		rb.answered = lost.Answered
		if len(lost.Left) > 0 {
			rb.sent, rb.left = syncerror.WithoutPaths(fix, lost.Left), lost.Left
		}
	}
	current, _, read := o.readRecord(ctx, c, "record not read back after a lost answer")
	if read {
		rb.read, rb.held = true, syncerror.RecordHolds(current, rb.sent)
	}
	return rb
}

// readRecord reads c's record, and its version, within MetadataWait, so a write after it
// keeps the rest of its time; ok is false (and unread logged) without a reader or when it
// cannot be read.
func (o *Service) readRecord(ctx context.Context, c syncerror.Claim, unread string) (current map[string]any, version string, ok bool) {
	if o.Assist == nil || o.Assist.Reader == nil {
		return nil, "", false
	}
	rctx, cancel := context.WithTimeout(ctx, syncerror.MetadataWait)
	current, version, err := o.Assist.Reader.ReadFields(rctx, c)
	cancel()
	if err != nil {
		httpapi.Logger(ctx).Warn(unread, "id", c.ID, "error", err)
		return nil, "", false
	}
	return current, version, true
}
