package governance

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// A release's write and what follows a write whose answer was lost.
//
// A release sends the held write to the target. When its request went out and its answer
// was lost (a timeout, a reset, a 5xx: mayHaveLanded), the write may have landed, now or
// later, and nothing here can tell: returning the approval to pending would let another
// approver deny it while the target holds its values, and answering write_failed would
// report a write that happened as refused. So the approval becomes unsettled: it is
// listed under that status, cannot be denied, and answers 502 release_unsettled. A
// failure before the request went out (the read before the write, a guard's refusal, no
// connector) sent nothing, and the approval is pending again as for a refusal.
//
// An unsettled approval is settled by a person, who always has a way out
// (http_settle.go): having checked the record in the target, an approver says it was
// written (approved; its ledger entry is recorded) or not written (pending again,
// deniable). An update may also be approved again: the write is sent again under the same
// idempotency key, the connector reads the record first and, finding the values there,
// reports the write without sending it; the approval then ends approved. A create is
// never sent again that way (the one write a vendor does not replay: a second POST is a
// second record): approving an unsettled create answers 409 unsettled_create. A settling
// attempt that fails leaves it unsettled, the first write may still be in the record; so
// does a take-over of a release that stopped midway (takeRelease's retaken), which may
// have sent its write before it stopped.

// ReleaseReserve is the time a release keeps, of the request's deadline (the Lambda's),
// for what follows its write: marking the approval (approved, pending or unsettled) and
// the audit. Without it a slow target would take the whole deadline and the function
// would end with the approval left releasing.
const ReleaseReserve = 5 * time.Second

// DefaultReleaseWriteTimeout bounds the write of a release whose request has no deadline
// (the local stack).
const DefaultReleaseWriteTimeout = 25 * time.Second

// releaseContext bounds a release's write so that marking and auditing still fit in the
// request's deadline after it. A deadline less than twice ReleaseReserve away keeps half
// of what is left instead: the write still gets its try, and the marking the other half.
func releaseContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-min(ReleaseReserve, time.Until(d)/2)))
	}
	return context.WithTimeout(ctx, DefaultReleaseWriteTimeout)
}

// unsettledDenyDetail answers a deny of an unsettled approval.
func unsettledDenyDetail(a PendingApproval) string {
	return "A release of this approval sent the held write and its answer was lost, so the write may have landed: it cannot be " +
		"denied as if nothing had been written. Check the record in " + string(a.Target) + ", then settle it: approve with " +
		`{"settle":"written"} if the record holds the write, or {"settle":"not_written"} if it does not, which makes it pending ` +
		"again, and deniable." + resendNote(a)
}

// resendNote says whether approving an unsettled approval again may send its write.
func resendNote(a PendingApproval) string {
	if a.Request.Create {
		return " It is a create, so it is never sent again: a second create would make a second record."
	}
	return " Or approve it again: the write is sent again under the same idempotency key, and a record that already holds it is not written twice."
}

// leaveUnsettled marks a release whose write may have landed unsettled (from releasing),
// audits it and answers 502 release_unsettled. again says the release followed one that
// may have sent the write (it settled an unsettled approval, or took over a release that
// stopped midway): that first write may still be in the record, whatever this attempt
// was answered.
func (s *Service) leaveUnsettled(w http.ResponseWriter, r *http.Request, id identity.Identity, a PendingApproval, werr error, again bool) {
	ctx := context.WithoutCancel(r.Context())
	httpapi.Logger(ctx).Warn("released write may have landed; the approval is unsettled", "approvalId", a.ID, "error", werr)
	if _, err := s.Records.DecideApproval(ctx, id.TenantID, a.ID, StatusReleasing, StatusUnsettled, id.Actor, s.now()); err != nil {
		// Left releasing, which cannot be denied
		// either; after the release timeout an approve takes it over as a settling one.
		httpapi.Logger(ctx).Error("approval left releasing after a lost answer", "approvalId", a.ID, "error", err)
	}
	// What went wrong, in a word: the connector's kind of failure, or the guard's refusal
	// of a settling attempt (its problem code); never the error's text, which can quote data.
	kind := connector.ErrorKind(werr)
	if kind == "" {
		kind = releaseProblem(werr).Code
	}
	detail := "The target system's answer to the write was lost (" + kind + "), so the write may have landed. "
	if again {
		detail = "An earlier release of this write may have sent it (its answer was lost, or it stopped midway); this attempt " +
			"failed too (" + kind + "), so that first write may still be in the record. "
	}
	p := httpapi.NewProblem(http.StatusBadGateway, CodeReleaseUnsettled, detail+
		"The approval is unsettled: it cannot be denied until it is settled. Check the record, then say whether it holds the "+
		`write: approve with {"settle":"written"} or {"settle":"not_written"} (pending again, and deniable).`+resendNote(a))
	var ce *connector.Error
	if errors.As(werr, &ce) {
		p.Target = &httpapi.TargetFailure{System: string(ce.System), Status: ce.Status, Code: ce.Code, Retryable: ce.Retryable}
	}
	s.auditDecision(ctx, id, ActionApprove, audit.ResultFailure, a, map[string]any{"problem": p.Code, "mayHaveApplied": true, "settling": again})
	httpapi.WriteProblem(w, r, p)
}

// refuseUnsettledCreate answers an approve of a create whose write may have been sent
// (unsettled, or a release of it taken over after it stopped midway: retaken, which is
// made unsettled here, from releasing) with 409 unsettled_create: the create is not sent
// again. Audited.
func (s *Service) refuseUnsettledCreate(w http.ResponseWriter, r *http.Request, id identity.Identity, a PendingApproval, retaken bool) {
	ctx := context.WithoutCancel(r.Context())
	detail := "An earlier release sent this create and its answer was lost, so the record may exist. "
	if retaken {
		detail = "An earlier release of this create stopped midway, perhaps after sending it, so the record may exist; the approval is now unsettled. "
		if _, err := s.Records.DecideApproval(ctx, id.TenantID, a.ID, StatusReleasing, StatusUnsettled, id.Actor, s.now()); err != nil {
			httpapi.Logger(ctx).Error("stale release of a create not marked unsettled", "approvalId", a.ID, "error", err)
		}
	}
	s.auditDecision(ctx, id, ActionApprove, audit.ResultDenied, a, map[string]any{"problem": CodeUnsettledCreate, "settling": true})
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeUnsettledCreate, detail+
		"A create sent again would make a second record, so it is not sent again. Look for the record in "+string(a.Target)+
		`: if it was created, approve with {"settle":"written","recordId":"<its id>"}; if not, approve with `+
		`{"settle":"not_written"}, which makes the approval pending again, to approve (a new create) or deny.`))
}
