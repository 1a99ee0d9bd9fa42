package wire

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
)

// A retry writes the approved fix again only where the record lost it. The approve
// vouched for the fix against the record as it stood then; days later a field may hold a
// value a person set since, and the fix written over it would be a value nobody vouches
// for now. So the record is read first, and each field of the fix judged by what it holds:
//
//   - the fix's value: nothing to write;
//   - the value the fix replaced (the ERP's own sync wrote it back): the fix was lost, and
//     is written again;
//   - anything else: someone changed it since. The attempt writes nothing at all and asks
//     the host ERP for no re-run, and the people judge the record.
//
// A field holding what the fix replaced may also be a revert a person asked for, written to
// the record but not recorded on the row (it still shows approved): before anything lost
// is written again, the row's revert mark says whether a revert was sent (revertLanded;
// for a row approved before marks were kept, the guard's write ledger and the audit log).

// lostFix sorts the fix the approve wrote by what fields (the record as read now) hold:
// the changes the record lost, the paths of fields changed since, and the paths of fields
// that no longer hold the fix where what they held before it was not kept (a secret's
// value, Prior.Withheld), so nothing tells a lost fix from a person's change.
func lostFix(c syncerror.Claim, fields map[string]any) (lost []syncerror.FieldChange, changed, untold []string) {
	for _, ch := range syncerror.WrittenFix(c) {
		if syncerror.FieldHolds(fields, ch) {
			continue
		}
		have, present := syncerror.FieldAt(fields, ch.Path)
		switch {
		case priorWithheld(c, ch.Path):
			untold = append(untold, ch.Path)
		case replaced(c, ch, have, present):
			lost = append(lost, ch)
		default:
			changed = append(changed, ch.Path)
		}
	}
	return lost, changed, untold
}

func priorWithheld(c syncerror.Claim, path string) bool {
	for _, p := range c.Applied.Prior {
		if p.Path == path {
			return p.Withheld
		}
	}
	return false
}

// rowWords are a retry's words for the kind of row it retries, given to every reason that
// stops an attempt: where the attempt went, what it did not ask for, and what a person does
// for the record to sync again. Such an attempt leaves a row whose fix was written approved,
// which no one can resolve (the resolve route takes open rows only), so no reason may say to.
type rowWords struct {
	// system is the attempt's system: the host ERP, or the flow's target.
	system string
	// notRerun is what the attempt did not do: "the host ERP was not asked to re-run the sync".
	notRerun string
	// syncAgain is what a person does for the record to sync again, said after "if ...,":
	// for a host row, re-run the sync in the host ERP; a flow row's flow syncs the record
	// again by itself when its source record next changes.
	syncAgain string
}

// hostWords are a host row's: the host ERP re-runs its sync.
var hostWords = rowWords{system: string(connector.SystemHostERP), notRerun: "the host ERP was not asked to re-run the sync",
	syncAgain: "re-run the sync in the host ERP"}

// changedReason is why a retry stops with nothing written on a record that changed since
// the approve, or may have. Paths only: the values may be personal data, and the attempt
// log is shown to every operator.
func changedReason(w rowWords, what string, changed, untold []string) string {
	var why []string
	if len(changed) > 0 {
		why = append(why, "changed since the approved fix was written ("+strings.Join(changed, ", ")+": neither the fix nor the value it replaced)")
	}
	if len(untold) > 0 {
		why = append(why, "no longer holds the approved fix in "+strings.Join(untold, ", ")+", and what those fields held before it "+
			"(a secret, card number or national id) is not kept, so whether the fix was lost or someone changed them cannot be told")
	}
	return what + " " + strings.Join(why, "; it also ") + "; nothing was written and " + w.notRerun + ". " +
		"Check the record: if its values are right, " + w.syncAgain + "; if the approved fix is, set it in the record again and retry"
}

// replaced reports whether a field holds what the fix replaced: the value read from the
// record just before the approve's write (Applied.Prior, not withheld: lostFix asks that
// first), or, where none was read, the change's own Before.
func replaced(c syncerror.Claim, ch syncerror.FieldChange, have any, present bool) bool {
	before, absent, read := ch.Before, false, false
	for _, p := range c.Applied.Prior {
		if p.Path != ch.Path {
			continue
		}
		before, absent, read = p.Value, p.Absent, true
		break
	}
	if !read && before == nil {
		// The proposal's Before, never read from the record, says empty: an empty field now
		// may as well be one a person cleared, and is not written over on that word.
		return false
	}
	if absent || before == nil {
		// Null and no field are one to a record: a revert clears a field with null.
		return !present || have == nil
	}
	return present && syncerror.SameHeld(have, before)
}

// rewriteFix writes the fix the approve wrote for c again to the fields of the record that
// lost it, before the re-run is asked for. stop says the attempt ends here,
// with out its outcome: the record could not be read, changed since the approve, or
// refused the write.
func (d deliverer) rewriteFix(ctx context.Context, actor string, client *connector.Client, c syncerror.Claim) (out syncerror.Delivery, stop bool) {
	host := string(connector.SystemHostERP)
	what := c.Record.RecordType + " " + c.Record.RecordID
	rec, err := client.Get(ctx, c.Record.RecordType, c.Record.RecordID)
	if err != nil {
		return hostFailure(err, what+" could not be read to see whether it still needs the approved fix; nothing was written"), true
	}
	lost, changed, untold := lostFix(c, rec.Fields)
	if len(changed)+len(untold) > 0 {
		// The row goes back to approved (its fix was written once), where it is neither
		// approved nor resolved again: what is left is the record itself.
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: host, Code: "RETRY_RECORD_CHANGED", Class: syncerror.AttemptValue,
			Reason: changedReason(hostWords, what, changed, untold)}, true
	}
	if len(lost) == 0 {
		return syncerror.Delivery{}, false // the record holds the fix: no write to guard
	}
	if out, stop := d.revertLanded(ctx, c, hostWords, what, rec.Fields); stop {
		return out, true
	}
	// The whole fix goes under the approve's key, the approve's own write replayed; part of
	// it is another payload, and a key names one payload only: its own, from the approve's
	// key and those fields. Every attempt that finds the same fields lost sends the same
	// write under the same key, so one the guard held for an ownership approval is released
	// for the next attempt (a key per attempt would be held anew each time). Should the
	// target replay it rather than apply it, the re-run request carries the whole fix.
	wkey := c.Applied.Key
	if len(lost) < len(syncerror.WrittenFix(c)) {
		wkey = syncerror.FixKey(c.Applied.Key+"-fix", lost)
	}
	// Pinned to the version just read: a person's change between this read and the write
	// fails it (connector.ErrConflict) rather than being overwritten.
	err = d.hostWriteIf(ctx, actor, c, c.Record.RecordType, c.Record.RecordID, wkey, rec.Version, syncerror.FixFields(lost))
	switch {
	case errors.Is(err, connector.ErrConflict) && rec.Version != "":
		return syncerror.Delivery{Result: syncerror.DeliveryTransient, System: host, Class: syncerror.AttemptValue,
			Reason: what + " changed while the approved fix was being written again; nothing was written, and the next attempt reads it again"}, true
	case err != nil:
		return refusal(host, err, "the approved fix could not be written to "+what), true
	}
	return syncerror.Delivery{}, false
}

// revertLanded ends the attempt, with nothing written and no re-run asked for, when c's
// revert was written, or when whether it was cannot be told. It is asked only where a
// revert could have been written and something lost is about to be written again.
//
// A write whose reverts mark the row before they send (Applied.RevertsMarked), or a row
// that carries a mark (one approved before marks were kept, reverted since), is told by
// the row alone (revertMarked): a mark, and a revert was sent; none, and none ever was.
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
func (d deliverer) revertLanded(ctx context.Context, c syncerror.Claim, w rowWords, what string, fields map[string]any) (syncerror.Delivery, bool) {
	back := syncerror.RevertChanges(c)
	if back == nil {
		return syncerror.Delivery{}, false // its values before were not kept: no revert was written
	}
	if len(c.Applied.RevertMarks) > 0 || c.Applied.RevertsMarked {
		return revertMarked(c, w, what, fields, back)
	}
	found, err, where := false, errNoLedger, "the guard's write ledger"
	if d.ledger != nil {
		found, err = governance.Wrote(ctx, d.ledger, c.TenantID, c.Record.RecordType, c.Record.RecordID, c.Applied.At, syncerror.RevertKey(c))
	}
	unsettled := false
	if err == nil && !found {
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

// revertMarked tells, from the row's revert mark and the record alone, whether c's revert
// put back the fields that lost the fix: no mark, no revert was sent (every revert of a
// write whose reverts are marked marks the row first), and the lost fix is written again.
// A mark, and a revert was sent, and may have landed whatever else recorded it: the record
// holding every value it sent is that revert (the row ends reverted); holding part of them,
// it landed in part, or the fix was lost apart from it, and neither is written on a guess.
// A mark whose revert failed but could not be removed is taken the same way: nothing is
// written over what an approver asked to take back.
func revertMarked(c syncerror.Claim, w rowWords, what string, fields map[string]any, back []syncerror.FieldChange) (syncerror.Delivery, bool) {
	switch {
	case len(c.Applied.RevertMarks) == 0:
		return syncerror.Delivery{}, false
	case syncerror.RecordHolds(fields, back):
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: w.system, Code: "RETRY_FIX_REVERTED", Class: syncerror.AttemptValue,
			Reverted: true,
			Reason: "the approved fix was reverted: a revert was sent to " + what + " (the row records that it was sent) and the record holds " +
				"every value it wrote back, but the row was not marked reverted then (recording it failed, or the revert's answer was lost), " +
				"so this attempt records it: the row is now reverted. Nothing was written and " + w.notRerun + ": " +
				"nothing more needs doing. If the sync itself must run again, " + w.syncAgain}, true
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
