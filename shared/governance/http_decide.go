package governance

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// The decisions on a held write: approve (which releases it) and deny.

func writeDecisionError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, CodeNotFound, "No such approval."))
	case errors.Is(err, ErrStateChanged):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeNotPending,
			"The approval is not pending: it was decided, or another approver is releasing it."))
	default:
		httpapi.WriteUnavailable(w, r, err, "Approvals are unavailable; retry shortly.")
	}
}

// releaseProblem maps a failed release to the answer; the approval is pending again by
// then, which every detail says.
func releaseProblem(err error) *httpapi.Problem {
	switch {
	case errors.Is(err, ErrLoopDetected):
		return httpapi.NewProblem(http.StatusConflict, CodeLoopDetected,
			"The held write would return a recent write of the other system (a loop); it stays pending. Approve it again later, or deny it.")
	case errors.Is(err, ErrMaskedValue):
		return httpapi.NewProblem(http.StatusConflict, CodeDLPMaskedValue,
			"The held write carries a masked value (a DLP mask or placeholder), which would overwrite the record's data; it stays pending. Deny it.")
	case errors.Is(err, ErrDLPBlocked):
		return httpapi.NewProblem(http.StatusConflict, CodeDLPBlocked,
			"The held write carries data the connector policy blocks; it stays pending. Deny it.")
	case errors.Is(err, ErrSuperseded):
		return httpapi.NewProblem(http.StatusConflict, CodeSuperseded,
			"A newer change of the source record has been written to every field of the held write since; releasing it would put back values the source no longer holds. It stays pending. Deny it.")
	case errors.Is(err, connector.ErrConflict):
		return httpapi.NewProblem(http.StatusConflict, CodeRecordChanged,
			"The target record changed since the write was held; it stays pending. Deny it and let the source write again.")
	case errors.Is(err, ErrNotConfigured):
		return httpapi.NewProblem(http.StatusServiceUnavailable, CodeConnectorNotConfigured,
			"The tenant has no connector for the target system; the approval stays pending.")
	case errors.Is(err, ErrUnavailable):
		p := httpapi.NewProblem(http.StatusServiceUnavailable, "temporarily_unavailable",
			"A governance check could not run; the approval stays pending. Retry shortly.")
		p.RetryAfter = 5 * time.Second
		return p
	}
	var ce *connector.Error
	if errors.As(err, &ce) && !connector.WriteSent(err) {
		// The read before the write (or the credential's token request) failed: the
		// write itself never went out.
		return httpapi.NewProblem(http.StatusBadGateway, CodeWriteFailed, "The target system failed before the write was sent ("+
			connector.ErrorKind(err)+"), so nothing was written; the approval stays pending. Retry, or deny it.")
	}
	return httpapi.NewProblem(http.StatusBadGateway, CodeWriteFailed,
		"The target system did not accept the write; the approval stays pending. Retry, or deny it.")
}

// Reasons (WriteRequest.Reason) of writes whose holds were stored before their callers set
// ReleaseByRetry. Their approvals lack the flag, yet the row that asked still decides
// whether they are written, so their release writes nothing either. The callers keep these
// reasons for that: finance.GuardUpdater's update, the sync-error fix writer's fix and
// revert (wire.fixWriter), and the sync-error retry's writes to the host ERP.
var releasedByRetryReasons = []string{"finance.approve", "approve", "syncerror.retry_request"}

// releasedByRetry reports whether releasing the held write r only approves it: its caller
// writes it when it decides again (ReleaseByRetry), so a caller's row that was rejected
// or otherwise decided meanwhile is never written by a release.
func releasedByRetry(r WriteRequest) bool {
	return r.ReleaseByRetry || slices.Contains(releasedByRetryReasons, r.Reason)
}

// releasedByRetryMessage tells the approver of a write released by retry what the
// release did and what comes next, in the words the callers' own 409s use (approve it
// under governance, then approve the operation again).
func releasedByRetryMessage(a PendingApproval) string {
	what, again := "the operation that asked for it", "approved again"
	switch a.Request.Reason {
	case "approve":
		what, again = "the sync error's fix (or its revert)", "approved (or reverted) again"
	case "syncerror.retry_request":
		// The retry's writes are of two kinds, which the approval cannot tell apart: the
		// approved fix written again is keyed by what it writes, so the next retry makes
		// the same write; the request to the host ERP to re-run the sync is keyed per
		// attempt and carries its time, so no retry ever makes this one again.
		return "Approved: the write is allowed now, but this release wrote nothing. If it writes the approved fix again into the " +
			"record, the sync error's next retry writes it, which the person who asked can do now. If it is the request to the host " +
			"ERP to re-run the sync, it is never written: each retry asks anew and is held again while the ownership manifest gives " +
			"the host ERP's sync-error record to another system, which an admin must change before the retry can run."
	case "finance.approve":
		what = "the finance approval"
	case "flow.run":
		// The flow run waits on the approval and writes it (a create linked to its
		// record) at its next check, within minutes; see flow's held.go.
		return "Approved: this release wrote nothing. The flow run that asked for the write makes it at its next check, within " +
			"the hour and usually minutes, and Flows › Runs then shows it written (or why not, when a newer change has been written since)."
	default:
		if a.Request.Reason != "" {
			what += " (" + a.Request.Reason + ")"
		}
	}
	return "Approved: the write is allowed now, but this release wrote nothing. It is written when " + what + " is " + again +
		", which the person who asked can do now; if that was rejected meanwhile, it is never written."
}

// ApproveHandler serves POST /api/governance/approvals/{id}/approve: it releases the held
// write through the guard and answers 200 with the approval, now approved. A write held
// with ReleaseByRetry (releasedByRetry) is only approved, and the answer says so
// (releaseByRetry, message): its caller's next decision writes it. Four eyes: the
// identity whose write was held may not release it (403 four_eyes). Once released, a retry
// of the original operation (same idempotency key) writes through, replayed by the target.
// A body with settle is an approver's word on an unsettled approval instead (http_settle.go).
func (s *Service) ApproveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := caller(w, r)
		if !ok {
			return
		}
		apID, ok := approvalID(w, r)
		if !ok {
			return
		}
		body, ok := readSettleBody(w, r)
		if !ok {
			return
		}
		if s.Guard == nil {
			// Checked before the decision, so a wiring mistake leaves nothing half-done.
			httpapi.WriteInternal(w, r, errors.New("governance: ApproveHandler has no Guard"))
			return
		}
		ctx := r.Context()
		// Four eyes fails closed: an approval that cannot be read is not released.
		cur, err := s.Records.GetApproval(ctx, id.TenantID, apID)
		if err != nil {
			writeDecisionError(w, r, err)
			return
		}
		if id.IsOneOf(cur.RequestedBy, cur.RequestedByKeys) {
			s.auditDecision(ctx, id, ActionApprove, audit.ResultDenied, cur, map[string]any{"problem": CodeFourEyes})
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeFourEyes,
				"You requested this write; another approver must release it."))
			return
		}
		if body.Settle != "" {
			s.settle(w, r, id, cur, body)
			return
		}
		if cur.Request.Create && cur.Status == StatusUnsettled {
			// A create sent again makes a second record: only a person who checked the
			// target settles it. (One left releasing is taken over below, if stale, and
			// made unsettled without sending.)
			s.refuseUnsettledCreate(w, r, id, cur, false)
			return
		}
		a, retaken, err := s.takeRelease(ctx, id, apID, cur.Status)
		if err != nil {
			writeDecisionError(w, r, err)
			return
		}
		if retaken && a.Request.Create {
			// The release taken over stopped midway, perhaps after sending the create:
			// sending it again could make a second record, so it is unsettled instead.
			s.refuseUnsettledCreate(w, r, id, a, true)
			return
		}
		// A release that settles an unsettled approval, or takes over one that stopped
		// midway (a settling one included), follows a write that may be in the record,
		// whatever this one is told.
		settling := cur.Status == StatusUnsettled || retaken
		var werr error
		byRetry := releasedByRetry(a.Request)
		if !byRetry {
			wctx, cancel := releaseContext(ctx)
			_, werr = s.Guard.release(wctx, id, a)
			cancel()
		}
		failed := werr != nil && !errors.Is(werr, ErrNotRecorded)
		if failed && (mayHaveLanded(werr) || settling) {
			// The write may be in the record: never back to pending, where it could be
			// denied as if nothing had been written.
			s.leaveUnsettled(w, r, id, a, werr, settling)
			return
		}
		if failed {
			httpapi.Logger(ctx).Error("approved write not released", "approvalId", a.ID, "error", werr)
			// Back to pending, undecided, so the approval can be approved again or denied.
			if _, err := s.Records.DecideApproval(context.WithoutCancel(ctx), id.TenantID, a.ID,
				StatusReleasing, StatusPending, "", time.Time{}); err != nil {
				httpapi.Logger(ctx).Error("approval left releasing after a failed release", "approvalId", a.ID, "error", err)
			}
			p := releaseProblem(werr)
			s.auditDecision(ctx, id, ActionApprove, audit.ResultFailure, a, map[string]any{"problem": p.Code})
			httpapi.WriteProblem(w, r, p)
			return
		}
		if werr != nil {
			// The write reached the target; only its ledger entry or audit is missing.
			httpapi.Logger(ctx).Error("approved write released but not fully recorded", "approvalId", a.ID, "error", werr)
		}
		done, err := s.Records.DecideApproval(context.WithoutCancel(ctx), id.TenantID, a.ID,
			StatusReleasing, StatusApproved, id.Actor, s.now())
		if err != nil {
			// The write is done; a later approve takes the stale release over and the
			// target replays it by its idempotency key, which ends in approved.
			httpapi.Logger(ctx).Error("released approval not marked approved", "approvalId", a.ID, "error", err)
			done = a
			done.Status, done.DecidedBy, done.DecidedAt = StatusApproved, id.Actor, s.now()
		}
		item := approvalItem(done)
		var extra map[string]any
		if byRetry {
			item.Message = releasedByRetryMessage(done)
			extra = map[string]any{"releaseByRetry": true, "written": false}
		}
		s.auditDecision(ctx, id, ActionApprove, audit.ResultSuccess, done, extra)
		httpapi.WriteJSON(w, http.StatusOK, item)
	})
}

// mayHaveLanded reports whether a failed release's write may be in the record: its own
// request went out (connector.WriteSent) and its answer was lost (MayHaveApplied). A
// failure before the request (the read of read-compare-write answered 504, the token
// request, a guard's refusal, no connector) sent nothing, and the approval goes back to
// pending as for a refusal.
func mayHaveLanded(err error) bool { return connector.MayHaveApplied(err) && connector.WriteSent(err) }

// takeRelease moves the approval to releasing for this approver: from pending, from
// unsettled (seen is the status the approve read: an unsettled one is settled by sending
// its write again), or from a release that has been stuck longer than the release timeout
// (retaken: that release may have sent the write before it stopped).
func (s *Service) takeRelease(ctx context.Context, id identity.Identity, apID string, seen ApprovalStatus) (a PendingApproval, retaken bool, err error) {
	now := s.now()
	from := StatusPending
	if seen == StatusUnsettled {
		from = StatusUnsettled
	}
	a, err = s.Records.DecideApproval(ctx, id.TenantID, apID, from, StatusReleasing, id.Actor, now)
	if !errors.Is(err, ErrStateChanged) {
		return a, false, err
	}
	timeout := s.ReleaseTimeout
	if timeout <= 0 {
		timeout = DefaultReleaseTimeout
	}
	a, err = s.Records.RetakeRelease(ctx, id.TenantID, apID, now.Add(-timeout), id.Actor, now)
	return a, err == nil, err
}

// DenyHandler serves POST /api/governance/approvals/{id}/deny: the held write is dropped
// and the approval answered 200, now denied. Only a pending approval is denied: an
// unsettled one (its write may have landed) answers 409 release_unsettled until an
// approver settles it (http_settle.go): as not written, it is pending and deniable.
func (s *Service) DenyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := caller(w, r)
		if !ok {
			return
		}
		apID, ok := approvalID(w, r)
		if !ok {
			return
		}
		a, err := s.Records.DecideApproval(r.Context(), id.TenantID, apID, StatusPending, StatusDenied, id.Actor, s.now())
		if errors.Is(err, ErrStateChanged) {
			if cur, gerr := s.Records.GetApproval(r.Context(), id.TenantID, apID); gerr == nil && cur.Status == StatusUnsettled {
				httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeReleaseUnsettled, unsettledDenyDetail(cur)))
				return
			}
		}
		if err != nil {
			writeDecisionError(w, r, err)
			return
		}
		s.auditDecision(r.Context(), id, ActionDeny, audit.ResultSuccess, a, nil)
		httpapi.WriteJSON(w, http.StatusOK, approvalItem(a))
	})
}

func (s *Service) auditDecision(ctx context.Context, id identity.Identity, key, result string, a PendingApproval, extra map[string]any) {
	d := map[string]any{
		"approvalId": a.ID, "reason": a.Reason, "declaredOwner": string(a.DeclaredOwner),
		"caller": string(a.Caller), "target": string(a.Target), "entity": a.Entity, "fields": a.Fields,
	}
	maps.Copy(d, extra)
	log := s.Audit
	if log == nil && s.Guard != nil {
		log = s.Guard.audit
	}
	if log == nil {
		httpapi.Logger(ctx).Error("approval decision not audited: no audit log configured", "approvalId", a.ID)
		return
	}
	if err := log.Write(ctx, audit.Entry{Actor: id, ActionType: audit.TypeGovernance, ActionKey: key,
		Result: result, Resource: a.Resource, Details: d}); err != nil {
		httpapi.Logger(ctx).Error("audit record not written", "actionKey", key, "approvalId", a.ID, "error", err)
	}
}
