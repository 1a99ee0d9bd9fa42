package wire

import (
	"context"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A flow row's re-run writes the approved fix in place of its fields (flowrerun.go), to
// the flow's target record, which the approve wrote the fix to (writeBack). Since then the
// fix may have been reverted (a revert whose marking on the row failed leaves the row
// approved, its record holding what the fix replaced), or a person may have set another
// value: a re-run carrying the fix would write it over either, a value nobody vouches for
// now. So a flow row whose fix was written is judged before any re-run as a host row is
// before its fix is written again (retryfix.go), with the same functions, given the words
// of a flow row (flowWords) to say what was not done and what to do:
//
//   - a field holds anything but the fix or what it replaced, or cannot be told (its value
//     before was withheld): RETRY_RECORD_CHANGED, for good, nothing written, no re-run;
//   - the row carries a revert's mark: a revert was sent, so nothing is re-run with the
//     fix whatever the record holds (revertLanded: RETRY_FIX_REVERTED, the row ends
//     reverted; RETRY_REVERT_UNSETTLED; RETRY_REVERT_PENDING, the record still holding
//     the fix while the revert may land);
//   - every field holds the fix: the re-run goes ahead with it;
//   - a field holds what the fix replaced: revertLanded tells a revert from a lost fix
//     (for a row approved before the marks, by the guard's ledger and the audit log), or
//     cannot tell now (transient). Only a fix lost with no revert behind it is re-run
//     with the fix.
//
// The re-run carries the whole fix, also for fields that hold it: the approved value is
// what they hold, and without it the mapping would write the source's value, the one the
// fix corrected, over it. Unlike the host path nothing is written before the re-run: the
// re-run's own write is the one that puts the lost fields back.
//
// Left as it was: the re-run's write is not pinned to the version read here (the flow's
// write has no IfVersion), so a change landing between this read and the re-run's write
// is overwritten, where the host path's write would fail on it.

// flowFixStands reads the target record c's fix was written to and reports whether the
// re-run may carry the fix; stop says the attempt ends here, with out its outcome and
// nothing written. A row with no written fix has nothing to check.
func (d deliverer) flowFixStands(ctx context.Context, c syncerror.Claim) (out syncerror.Delivery, stop bool) {
	if len(syncerror.WrittenFix(c)) == 0 {
		return syncerror.Delivery{}, false
	}
	target, _ := writeBack(c)
	sys := string(target)
	what := sys + " " + c.Record.RecordType + " " + c.Record.RecordID
	// The connector the approve and the revert wrote through (the tenant's, any of the
	// systems); without it the record cannot be read, and the fix is not written blind.
	if d.hosts == nil {
		return configuration(sys, "RETRY_NO_CONNECTOR", "the service has no "+sys+" connector to read "+what+
			", which the approved fix was written to, before re-running the flow with it; nothing was written"), true
	}
	client, err := d.hosts.Client(ctx, c.TenantID, target)
	if err != nil {
		return configuration(sys, "RETRY_NO_CONNECTOR", "the tenant's "+sys+" connector cannot be used ("+connector.ErrorKind(err)+
			"); an admin must set it up under Settings, then retry. Nothing was written"), true
	}
	rec, err := client.Get(ctx, c.Record.RecordType, c.Record.RecordID)
	if err != nil {
		// Judged as the host path's read is: transient, unless the system says another try
		// cannot help (the record is gone, access is refused).
		return FailedAttempt(sys, err, what+" could not be read to see whether it still needs the approved fix; nothing was written"), true
	}
	lost, changed, untold := lostFix(c, rec.Fields)
	if len(changed)+len(untold) > 0 {
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: sys, Code: "RETRY_RECORD_CHANGED", Class: syncerror.AttemptValue,
			Reason: changedReason(flowWords(sys), what, changed, untold)}, true
	}
	// Asked also where nothing was lost: a revert marked on the row may be in flight, and
	// the re-run carries the whole fix.
	if out, stop := d.revertLanded(ctx, c, flowWords(sys), what, rec.Fields, lost); stop {
		return out, true
	}
	return syncerror.Delivery{}, false
}

// flowWords are a flow row's words (rowWords) for its target sys. The row ends approved
// where an attempt stops, so the resolve route refuses it; the record syncs again when the
// flow next runs for its source record.
func flowWords(sys string) rowWords {
	return rowWords{system: sys, notRerun: "the flow was not re-run",
		syncAgain: "nothing more is needed here: the flow syncs the record again when its source record next changes"}
}
