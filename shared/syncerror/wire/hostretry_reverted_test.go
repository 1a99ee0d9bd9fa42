package wire

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert written to the record whose marking on the row failed leaves the row approved
// with its fix, and the record holding what the fix replaced: to a retry, exactly a record
// that lost the fix. The guard's ledger has the revert's write, and the retry asks it.

// unmarkedReverts is the queue's store down for MarkReverted only.
type unmarkedReverts struct{ syncerror.AssistStore }

func (unmarkedReverts) MarkReverted(context.Context, string, string, syncerror.HistoryEntry, time.Time) error {
	return errors.New("dynamodb: service unavailable")
}

// revertedUnrecorded approves shipcountry=DE on SO-10042 (it held Deutschland), then
// reverts it with the row's marking failing: 202, the record holds Deutschland again.
// Both by the version before revert marks: these tests hold how a row of that version,
// without a mark, is still told by the ledger and the audit log (revertmark_test.go
// holds the rows of this one).
func (e *hostEnv) revertedUnrecorded(t *testing.T, errorID string) syncerror.Claim {
	t.Helper()
	e.claims.beforeMarks = true
	c := e.approvedOnHost(t, errorID, map[string]any{"shipcountry": "Deutschland"}, ``)
	e.op.Assist.Store = unmarkedReverts{e.op.Assist.Store}
	if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != http.StatusAccepted {
		t.Fatalf("revert with the row's marking failing: %d %s", w.Code, w.Body)
	}
	w := writesTo(e.host, "salesOrder")
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "Deutschland" || w[len(w)-1].IdempotencyKey != syncerror.RevertKey(c) {
		t.Fatalf("after the revert the record holds %v, its last write %+v (RevertKey %q)", rec.Fields["shipcountry"], w[len(w)-1], syncerror.RevertKey(c))
	}
	if row := e.row(t, c.ID); row.Status != syncerror.StatusApproved {
		t.Fatalf("the row is %s; its marking failed, so it still shows approved", row.Status)
	}
	return c
}

// The retry finds the revert in the ledger: it writes the fix nobody vouches for any more
// nowhere, asks for no re-run, ends for good saying the fix was reverted, and records the
// revert on the row (reverted), so no later retry, past the ledger's day or by a bulk
// filter, takes the record's values before the fix for a lost fix.
func TestARetryDoesNotWriteTheFixOverARevertTheRowDidNotRecord(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUnrecorded(t, "E-reverted")
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); e.host.WriteCount() != writes || rec.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("the fix was reverted; the retry wrote %+v and the record holds %v", e.host.Writes()[writes:], rec.Fields["shipcountry"])
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FIX_REVERTED" || !strings.Contains(got.Reason, "reverted") ||
		!strings.Contains(got.Reason, "Nothing was written") {
		t.Fatalf("attempt %+v", got)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the host ERP was asked to re-run the sync with a fix that was reverted")
	}
	last := row.History[len(row.History)-1]
	if row.Status != syncerror.StatusReverted || last.Action != "revert_found" || last.Actor != "alice" || !strings.Contains(last.Note, "RETRY_FIX_REVERTED") {
		t.Fatalf("the row is %s, its last entry %+v", row.Status, last)
	}
	// Past the ledger's day the row, not the ledger, refuses the retry.
	e.now = e.now.Add(governance.LedgerRetention + time.Hour)
	if w := e.call(t, e.op.RetryHandler(), c.ID, ``); w.Code != http.StatusConflict || e.host.WriteCount() != writes {
		t.Fatalf("a retry of the reverted row a day later: %d %s, writes %+v", w.Code, w.Body, e.host.Writes()[writes:])
	}
}

// countedLedger is the guard's ledger as the deliverer reads it: reads counted, failing
// while down is set.
type countedLedger struct {
	governance.Ledger
	reads int
	down  bool
}

func (l *countedLedger) Recent(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]governance.LedgerEntry, error) {
	l.reads++
	if l.down {
		return nil, errors.New("ProvisionedThroughputExceededException")
	}
	return l.Ledger.Recent(ctx, tenantID, entity, recordID, since)
}

// The ledger cannot be read: a revert cannot be told from a lost fix, so nothing is
// written and no re-run asked for, and the next attempt asks again.
func TestARetryWritesNothingWhenTheLedgerCannotTellARevert(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUnrecorded(t, "E-unknown")
	l := &countedLedger{Ledger: e.ledger, down: true}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: l, audits: e.op.Audit.(*audit.Log)}
	writes := e.host.WriteCount()
	_, got := e.retry(t, c.ID)
	if e.host.WriteCount() != writes {
		t.Fatalf("written without the ledger read: %+v", e.host.Writes()[writes:])
	}
	if got.Result != syncerror.DeliveryTransient || l.reads == 0 || !strings.Contains(got.Reason, "nothing was written") {
		t.Fatalf("attempt %+v (ledger reads %d)", got, l.reads)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("a re-run was asked for without knowing whether the fix was reverted")
	}
}

// A record that holds the fix has nothing lost to write: the ledger is not read.
func TestARetryReadsNoLedgerWhereTheRecordHoldsTheFix(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-held-ledger", map[string]any{"shipcountry": "Deutschland"}, ``)
	l := &countedLedger{Ledger: e.ledger}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: l, audits: e.op.Audit.(*audit.Log)}
	if _, got := e.retry(t, c.ID); got.Result != syncerror.DeliveryRequested || l.reads != 0 {
		t.Fatalf("attempt %+v, ledger reads %d", got, l.reads)
	}
}
