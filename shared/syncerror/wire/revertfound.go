package wire

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
)

// Whether a revert put back the fields of a record that lost the approved fix, asked by a
// retry (retryfix.go, flowretry.go) before it writes or re-runs anything with the fix.

// revertLanded ends the attempt, with nothing written and no re-run asked for, when a
// revert of c was sent or written, or when whether it was cannot be told. It is asked
// before anything is written or re-run with the fix, with lost the fields of the record
// (fields) that lost the fix: where none did and the row carries no mark, no revert can
// stand in the way and nothing is read.
//
// A row that carries a mark (revertMarked) had a revert sent that no one has shown did
// not land: whatever the record holds, the attempt writes nothing and re-runs nothing with
// the fix. That includes a record still holding the fix: the revert may be in flight (it
// marked the row, then the retry took the row), and a re-run carrying the fix, or a host
// ERP's re-run applying it, would write it over the revert once it lands. A retry that
// holds the row cannot meet a mark set after its read: the revert marks only an approved
// row, and the retry's row is retrying (AssistStore.MarkRevertSent).
//
// A write whose reverts mark the row before they send (Applied.RevertsMarked), with no
// mark, had no revert of this version sent. Approve and revert are separate Lambdas,
// though, and may run different versions during a deploy or after a rollback: a revert of
// the version before marks nothing, and when its row marking fails too (202) such a row
// looks the same. So where the fix was lost the guard's ledger is still asked (a query or
// two, governance.Wrote, only then), but not the audit log: the marks made the audit
// read, up to a day's records, needless for this version's reverts. What is left: a
// revert of a version before the marks, during a rollback, whose row marking failed and
// whose ledger entry is gone (the guard could not record it, or its day has passed) is
// taken for a lost fix.
//
// The rest, rows approved before marks were kept and never marked, are told as before:
//
// The guard's write ledger is asked first (RevertKey, the key the revert wrote under). It
// may not have it: the guard could not record the write (the revert still counts it as
// written, and says so), or the ledger no longer keeps it (governance.LedgerRetention, a
// day). The revert's own audit record (syncerror.AuditRevert, success, on the row) is
// durable, and is written whether or not the row's marking landed; it is read then only,
// so the common path (the ledger has it, or nothing was lost) costs no audit read. A
// revert whose answer was lost and not settled has a record of its own: with the record
// holding every value it sent, it landed late. What no record tells: a revert whose ledger
// entry and audit records were both lost (the gap the mark closes).
func (d deliverer) revertLanded(ctx context.Context, c syncerror.Claim, w rowWords, what string, fields map[string]any,
	lost []syncerror.FieldChange) (syncerror.Delivery, bool) {
	back := syncerror.RevertChanges(c)
	if back == nil {
		return syncerror.Delivery{}, false // its values before were not kept: no revert was written
	}
	if len(c.Applied.RevertMarks) > 0 {
		return revertMarked(w, what, fields, back, len(lost) > 0)
	}
	if len(lost) == 0 {
		return syncerror.Delivery{}, false
	}
	found, err, where := false, errNoLedger, "the guard's write ledger"
	if d.ledger != nil {
		found, err = governance.Wrote(ctx, d.ledger, c.TenantID, c.Record.RecordType, c.Record.RecordID, c.Applied.At, syncerror.RevertKey(c))
	}
	unsettled := false
	if err == nil && !found && !c.Applied.RevertsMarked {
		where = "the audit log"
		found, unsettled, err = d.revertAudited(ctx, c, back, fields)
	}
	switch {
	case errors.Is(err, audit.ErrTooManyToTell):
		// The window is the revert's own and does not move: another attempt would read the
		// same records again and no more. The people judge the record.
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_REVERT_UNTOLD", Class: syncerror.AttemptValue,
			Reason: what + " holds what the approved fix replaced, and the audit log holds too many of the day's records to tell whether " +
				"a revert put it back; nothing was written and " + w.notRerun + ". Check the record: if the fix belongs there, set it in " +
				"the record again and retry"}, true
	case err != nil:
		httpapi.Logger(ctx).Warn("retry: not told whether the fix was reverted", "id", c.ID, "from", where, "error", err)
		return syncerror.Delivery{Result: syncerror.DeliveryTransient, System: w.system, Class: syncerror.AttemptConnection,
			Reason: what + " holds what the approved fix replaced, and " + where + ", which tells whether a revert put it back, " +
				"could not be read; nothing was written, and the next attempt reads it again"}, true
	case unsettled:
		// A revert was sent and its answer lost, and the record holds only part of it: it
		// may have landed in part, or the fix been lost apart from it. Neither the fix nor
		// the revert is written on a guess, and the row is not said to be reverted.
		return unsettledRevert(w, what, "its answer was lost")
	case found:
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_FIX_REVERTED", Class: syncerror.AttemptValue,
			Reverted: true,
			Reason: "the approved fix was reverted: the revert was written to " + what + " (" + where + " has it), but recording it on the row failed, " +
				"so this attempt records it: the row is now reverted. Nothing was written and " + w.notRerun + ": " +
				"the record holds its values from before the fix, as the revert left them, and nothing more needs doing. If the sync itself " +
				"must run again, " + w.syncAgain}, true
	}
	return syncerror.Delivery{}, false
}

// revertMarked decides an attempt on a row carrying a revert's mark, from the record
// alone: a revert was sent, and may have landed or still land, whatever else recorded it.
// The record holding every value it sent is that revert (the row ends reverted); holding
// part of them (anyLost), it landed in part, or the fix was lost apart from it, and
// neither is written on a guess; still holding the fix in every field, the revert may be
// in flight, or did not land with its answer lost: nothing is written over it either. A
// mark whose revert failed but could not be removed is taken the same way: nothing is
// written over what an approver asked to take back.
func revertMarked(w rowWords, what string, fields map[string]any, back []syncerror.FieldChange, anyLost bool) (syncerror.Delivery, bool) {
	switch {
	case syncerror.RecordHolds(fields, back):
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_FIX_REVERTED", Class: syncerror.AttemptValue,
			Reverted: true,
			Reason: "the approved fix was reverted: a revert was sent to " + what + " (the row records that it was sent) and the record holds " +
				"every value it wrote back, but the row was not marked reverted then (recording it failed, or the revert's answer was lost), " +
				"so this attempt records it: the row is now reverted. Nothing was written and " + w.notRerun + ": " +
				"nothing more needs doing. If the sync itself must run again, " + w.syncAgain}, true
	case !anyLost:
		// Permanent, not transient: a transient attempt keeps the row retrying, which a
		// revert refuses (it takes approved rows only), so the person could not revert
		// again; and a revert that did not land leaves its mark for good, so later attempts
		// would find the same. Back to approved, the person reverts again or keeps the fix.
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_REVERT_PENDING", Class: syncerror.AttemptValue,
			Reason: "a revert of the approved fix was sent to " + what + " (the row records that it was sent) and has not been seen to land: " +
				"the record still holds the fix, and the revert may still be on its way, or did not land and its answer was lost. Nothing was " +
				"written and " + w.notRerun + ", so that the fix is not written over the revert should it land; a retry stops here while the " +
				"row records the revert. Check the record: to take the fix back, revert again (the same write is sent under the same key); " +
				"if the fix should stay, " + w.syncAgain}, true
	}
	return unsettledRevert(w, what, "the row records that it was sent")
}

// unsettledRevert stops an attempt on a record holding part of what a revert sent to what
// (how: how the revert is known to have been sent): it may have landed in part, or the fix
// been lost apart from it, and neither is written on a guess. Not "revert again": the
// revert refuses a record that no longer holds the fix in every field (changed_since).
func unsettledRevert(w rowWords, what, how string) (syncerror.Delivery, bool) {
	return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_REVERT_UNSETTLED", Class: syncerror.AttemptValue,
		Reason: "a revert of the approved fix was sent to " + what + " (" + how + "), and the record holds only part of " +
			"what it wrote back; nothing was written and " + w.notRerun + ". Check the record and set in it what " +
			"belongs there: the values from before the fix, or the approved fix"}, true
}

// revertAuditSlack is how long after the revert window closes a revert's audit record may
// still be written: the window is checked when the revert begins, and its write, the row's
// marking (with retries) and the audit follow.
const revertAuditSlack = time.Hour

// revertAudited reports whether the audit log records c's revert as written, or as sent
// with its answer lost where fields (the record as read) hold every value it sent, back (found);
// unsettled, a revert sent with its answer lost that the record holds only part of. The window
// is the revert's own: from the fix's write to the end of the time it could be reverted
// in, so the read is bounded by a day of the tenant's sync-error records however late the
// retry.
func (d deliverer) revertAudited(ctx context.Context, c syncerror.Claim, back []syncerror.FieldChange, fields map[string]any) (found, unsettled bool, err error) {
	if d.audits == nil {
		return false, false, errNoAudit
	}
	q := audit.Query{TenantID: c.TenantID, ActionType: audit.TypeSyncError, ActionKey: syncerror.AuditRevert,
		Resource: "syncerror/" + c.ID, Result: audit.ResultSuccess, From: c.Applied.At, To: c.Applied.At.Add(decisions.RevertWindow + revertAuditSlack)}
	if found, err = d.audits.Has(ctx, q); err != nil || found {
		return found, false, err
	}
	q.ActionKey, q.Result = syncerror.AuditRevertUnsettled, ""
	if sent, err := d.audits.Has(ctx, q); err != nil || !sent {
		return false, false, err
	}
	// Sent with its answer lost: landed when the record holds every value it sent (late),
	// else unsettled, whatever the fields that lost the fix say.
	if syncerror.RecordHolds(fields, back) {
		return true, false, nil
	}
	return false, true, nil
}

// auditTrail is the audit log as a retry asks it (audit.Log.Has).
type auditTrail interface {
	Has(ctx context.Context, q audit.Query) (bool, error)
}

// errNoAudit is a deliverer built without the audit log: a revert the ledger does not
// have cannot be told from a lost fix, so it writes neither.
var errNoAudit = errors.New("the retry has no audit log")

// errNoLedger is a deliverer built without the guard's ledger: it cannot tell a revert
// from a lost fix, so it writes neither.
var errNoLedger = errors.New("the retry has no write ledger")
