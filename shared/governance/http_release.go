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
// A release sends the held write to the target. When its answer is lost (a timeout, a
// reset, a 5xx: connector.MayHaveApplied), the write may have landed, now or later, and
// nothing here can tell: returning the approval to pending would let another approver
// deny it while the target holds its values, and answering write_failed would report a
// write that happened as refused. So the approval becomes unsettled: it is listed under
// that status, cannot be denied, and answers 502 release_unsettled. The next approve of it
// settles it by sending the write again under the same idempotency key: the connector reads
// the record first and, finding the values there, reports the write without sending it
// again; either way the guard then records its ledger entry and the approval ends
// approved. A failure of that settling attempt leaves it unsettled: the first write may
// still be in the record.

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
const unsettledDenyDetail = "A release of this approval sent the held write and its answer was lost, so the write may have landed: " +
	"it cannot be denied. Check the record in the target system, then approve it again to settle it: the write is sent again under " +
	"the same idempotency key, and a record that already holds it is not written twice."

// leaveUnsettled marks a release whose write may have landed unsettled (from releasing),
// audits it and answers 502 release_unsettled. again says the release was itself the
// settling of an unsettled approval, which failed: its first write may still be in the
// record, whatever this attempt was answered.
func (s *Service) leaveUnsettled(w http.ResponseWriter, r *http.Request, id identity.Identity, a PendingApproval, werr error, again bool) {
	ctx := context.WithoutCancel(r.Context())
	httpapi.Logger(ctx).Warn("released write may have landed; the approval is unsettled", "approvalId", a.ID, "error", werr)
	if _, err := s.Records.DecideApproval(ctx, id.TenantID, a.ID, StatusReleasing, StatusUnsettled, id.Actor, s.now()); err != nil {
		// Left releasing, which cannot be denied either; after the release timeout an
		// approve takes it over and sends the write again, which settles it.
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
		detail = "An earlier release sent this write and its answer was lost; this attempt to settle it failed too (" +
			kind + "), so the first write may still be in the record. "
	}
	p := httpapi.NewProblem(http.StatusBadGateway, CodeReleaseUnsettled, detail+
		"The approval is unsettled: it cannot be denied. Check the record, then approve it again to settle it: the write is sent "+
		"again under the same idempotency key, and a record that already holds it is not written twice.")
	var ce *connector.Error
	if errors.As(werr, &ce) {
		p.Target = &httpapi.TargetFailure{System: string(ce.System), Status: ce.Status, Code: ce.Code, Retryable: ce.Retryable}
	}
	s.auditDecision(ctx, id, ActionApprove, audit.ResultFailure, a, map[string]any{"problem": p.Code, "mayHaveApplied": true, "settling": again})
	httpapi.WriteProblem(w, r, p)
}
