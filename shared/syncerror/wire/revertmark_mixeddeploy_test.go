package wire

import (
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// Approve and revert are separate Lambdas: during a deploy, or after a rollback, a row the
// new approve marked (RevertsMarked) may be reverted by a revert Lambda of the version
// before, which marks nothing. Where its row marking fails too (202) the row looks like one
// whose fix was lost with no revert sent; the retry still asks the guard's ledger, not the
// audit log, before it writes the lost fix again.

// revertedByTheVersionBefore approves shipcountry=DE on SO-10042 (it held Deutschland) with
// this version, then reverts it as the version before does, its row marking failing: 202,
// the record holds Deutschland again, and the row, approved, carries no mark.
func (e *hostEnv) revertedByTheVersionBefore(t *testing.T, errorID string) syncerror.Claim {
	t.Helper()
	c := e.approvedOnHost(t, errorID, map[string]any{"shipcountry": "Deutschland"}, ``)
	if !e.row(t, c.ID).Applied.RevertsMarked {
		t.Fatal("set-up: the approve did not mark its write")
	}
	e.claims.beforeMarks = true // the revert Lambda of the version before: it marks nothing
	e.op.Assist.Store = unmarkedReverts{e.op.Assist.Store}
	if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != http.StatusAccepted {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	e.claims.beforeMarks = false
	if row := e.row(t, c.ID); row.Status != syncerror.StatusApproved || len(row.Applied.RevertMarks) != 0 {
		t.Fatalf("set-up: row %s, marks %+v", row.Status, row.Applied.RevertMarks)
	}
	return c
}

func TestARetryAsksTheLedgerForARevertOfTheVersionBeforeMarks(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedByTheVersionBefore(t, "E-mixed")
	l, a := e.countedReads()
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "Deutschland" || e.host.WriteCount() != writes {
		t.Fatalf("the retry wrote the fix over the ledgered revert: %v, attempt %+v, row %s", rec.Fields["shipcountry"], got, row.Status)
	}
	if got.Code != "RETRY_FIX_REVERTED" || !strings.Contains(got.Reason, "the guard's write ledger has it") || row.Status != syncerror.StatusReverted {
		t.Fatalf("attempt %+v, row %s", got, row.Status)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the host ERP was asked to re-run the sync with a fix that was reverted")
	}
	if l.reads == 0 || a.reads != 0 {
		t.Fatalf("%d ledger and %d audit reads; the ledger, only, is asked", l.reads, a.reads)
	}
}

// The ledger cannot be read: a revert of the version before cannot be told from a lost
// fix, so nothing is written (transient), and the audit log is not asked instead.
func TestARetryOfAMarkedRowWritesNothingWhileTheLedgerCannotBeRead(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedByTheVersionBefore(t, "E-mixed-down")
	l := &countedLedger{Ledger: e.ledger, down: true}
	a := &countedAudits{log: e.op.Audit.(*audit.Log)}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: l, audits: a}
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if e.host.WriteCount() != writes || got.Result != syncerror.DeliveryTransient || !strings.Contains(got.Reason, "nothing was written") ||
		a.reads != 0 || row.Status != syncerror.StatusRetrying {
		t.Fatalf("attempt %+v, writes %+v, %d audit reads, row %s", got, e.host.Writes()[writes:], a.reads, row.Status)
	}
}
