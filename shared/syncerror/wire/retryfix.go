package wire

import (
	"context"
	"errors"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/syncerror"
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
	// Asked also where nothing was lost: a revert marked on the row may be in flight, and
	// the re-run this attempt asks for carries the fix.
	if out, stop := d.revertLanded(ctx, c, hostWords, what, rec.Fields, lost); stop {
		return out, true
	}
	if len(lost) == 0 {
		return syncerror.Delivery{}, false // the record holds the fix: no write to guard
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
