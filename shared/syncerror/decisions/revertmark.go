package decisions

import (
	"context"
	"errors"
	"net/http"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert marks the row (AppliedWrite.RevertMarks) before it sends anything. What records
// a revert after its write (the guard's ledger entry, the row's marking, the audit record)
// may each fail, and a revert none of them recorded looks, to a retry, exactly like a fix
// the ERP's own sync overwrote: the retry would write the fix back over the revert, a value
// the approver took back. The mark is written first, or nothing is sent; so a retry of a
// row whose write's reverts are marked (AppliedWrite.RevertsMarked) decides from the marks
// and the record: any mark, a revert was sent (wire/retryfix.go).
//
// Each revert adds a mark of its own and takes back only that one. A revert whose answer
// was lost (502 revert_unsettled) says to revert again; were the second revert's mark to
// replace the first's, the second failing would take the only mark with it, and the first,
// landing late, would look like a lost fix.

// markRevertSent marks c's row with m before its revert is sent; false when it answered:
// 409 state_changed when the row is no longer approved with the write it was read with (a
// retry took it meanwhile), 503 when the queue could not be written. Nothing is sent then.
func (o *Service) markRevertSent(w http.ResponseWriter, r *http.Request, c syncerror.Claim, m syncerror.RevertMark) bool {
	ctx := r.Context()
	err := retryStore(ctx, func() error { return o.Assist.Store.MarkRevertSent(ctx, c.TenantID, c.ID, *c.Applied, m) })
	switch {
	case err == nil:
		return true
	case errors.Is(err, syncerror.ErrStateChanged), errors.Is(err, syncerror.ErrNotFound):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The sync error changed since it was read; nothing was reverted. Reload it and revert again if it is still approved."))
	default:
		// The mark may have landed with its answer lost: it is taken back, so that it does
		// not stand for a revert that was never sent.
		o.clearRevertSent(ctx, c, m)
		httpapi.WriteUnavailable(w, r, err, "The revert could not be recorded on the sync error before being sent, so nothing "+
			"was written and the row stays approved. Revert again shortly.")
	}
	return false
}

// clearRevertSent removes m, and no other revert's mark, from c's row after a revert known
// not to have landed, on a context the request's end does not cancel (the client gone, the
// write's deadline): a mark left over stands for a revert. Best effort: where it cannot be
// removed (the queue down through the retries), it stays, and that is the conservative
// side: a later retry then writes nothing and re-runs nothing with the fix, whatever the
// record holds (RETRY_FIX_REVERTED where it holds the values before the fix,
// RETRY_REVERT_UNSETTLED for part of them, RETRY_REVERT_PENDING where it holds the fix),
// rather than write again a fix an approver asked to take back.
func (o *Service) clearRevertSent(ctx context.Context, c syncerror.Claim, m syncerror.RevertMark) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteReserve)
	defer cancel()
	err := retryStore(ctx, func() error { return o.Assist.Store.ClearRevertSent(ctx, c.TenantID, c.ID, m) })
	if err != nil && !errors.Is(err, syncerror.ErrStateChanged) {
		httpapi.Logger(ctx).Error("revert not sent, but its mark not removed: a retry of the row writes nothing with the fix", "id", c.ID, "error", err)
	}
}
