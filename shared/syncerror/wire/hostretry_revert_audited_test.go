package wire

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert the guard wrote but could not record in its ledger (the revert counts it as
// written) leaves the ledger without it; with the row's marking failing too, only the
// revert's own audit record says it happened. The retry reads that record before it
// writes anything lost again, and only then.

// revertedUnledgered is revertedUnrecorded with the guard's ledger down for the revert's
// write: 202, the record holds Deutschland again, and the ledger has no revert.
func (e *hostEnv) revertedUnledgered(t *testing.T, errorID string) syncerror.Claim {
	t.Helper()
	e.claims.beforeMarks = true // as revertedUnrecorded
	c := e.approvedOnHost(t, errorID, map[string]any{"shipcountry": "Deutschland"}, ``)
	e.op.Assist.Store = unmarkedReverts{e.op.Assist.Store}
	e.ledger.failing = true
	w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`)
	e.ledger.failing = false
	if w.Code != http.StatusAccepted {
		t.Fatalf("revert with the ledger and the row's marking failing: %d %s", w.Code, w.Body)
	}
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("after the revert the record holds %v", rec.Fields["shipcountry"])
	}
	if found, err := governance.Wrote(context.Background(), e.ledger, "acme", "salesOrder", "SO-10042", c.Applied.At, syncerror.RevertKey(c)); found || err != nil {
		t.Fatalf("the ledger has the revert (%v, %v)", found, err)
	}
	return c
}

// countedAudits is the audit log as the deliverer reads it: reads counted, failing while
// down is set.
type countedAudits struct {
	log   *audit.Log
	reads int
	down  bool
}

func (a *countedAudits) Has(ctx context.Context, q audit.Query) (bool, error) {
	a.reads++
	if a.down {
		return false, errors.New("ProvisionedThroughputExceededException")
	}
	return a.log.Has(ctx, q)
}

// The ledger has no revert; the audit log has it: nothing written, no re-run asked for.
func TestARetryFindsARevertTheLedgerDidNotRecordInTheAuditLog(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUnledgered(t, "E-unledgered")
	a := &countedAudits{log: e.op.Audit.(*audit.Log)}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: e.ledger, audits: a}
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); e.host.WriteCount() != writes || rec.Fields["shipcountry"] != "Deutschland" || row.Status != syncerror.StatusReverted {
		t.Fatalf("the fix was reverted; the retry wrote %+v, the record holds %v, the row is %s", e.host.Writes()[writes:], rec.Fields["shipcountry"], row.Status)
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FIX_REVERTED" || !strings.Contains(got.Reason, "the audit log has it") || a.reads != 1 {
		t.Fatalf("attempt %+v (audit reads %d)", got, a.reads)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the host ERP was asked to re-run the sync with a fix that was reverted")
	}
}

// The audit log cannot be read: a revert cannot be told from a lost fix, so nothing is
// written and the next attempt asks again.
func TestARetryWritesNothingWhenTheAuditLogCannotTellARevert(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUnledgered(t, "E-audit-down")
	a := &countedAudits{log: e.op.Audit.(*audit.Log), down: true}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: e.ledger, audits: a}
	writes := e.host.WriteCount()
	_, got := e.retry(t, c.ID)
	if e.host.WriteCount() != writes {
		t.Fatalf("written without the audit log read: %+v", e.host.Writes()[writes:])
	}
	if got.Result != syncerror.DeliveryTransient || a.reads != 1 || !strings.Contains(got.Reason, "the audit log") {
		t.Fatalf("attempt %+v (audit reads %d)", got, a.reads)
	}
}

// The ledger has the revert, or nothing is lost: the audit log is not read.
func TestARetryReadsNoAuditLogWhereTheLedgerTellsOrNothingIsLost(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUnrecorded(t, "E-ledgered")
	a := &countedAudits{log: e.op.Audit.(*audit.Log)}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: e.ledger, audits: a}
	if _, got := e.retry(t, c.ID); got.Code != "RETRY_FIX_REVERTED" || a.reads != 0 {
		t.Fatalf("attempt %+v, audit reads %d", got, a.reads)
	}
	held := e.approvedOnHost(t, "E-held-audit", map[string]any{"shipcountry": "Deutschland"}, ``)
	if _, got := e.retry(t, held.ID); got.Result != syncerror.DeliveryRequested || a.reads != 0 {
		t.Fatalf("attempt %+v, audit reads %d", got, a.reads)
	}
}

// A revert whose answer was lost and that reading the record back did not settle (its own
// audit record, no ledger entry) landed late: the record holds every value it sent. The
// retry takes it for the revert it is, not a lost fix; without that record the same record
// is a lost fix and is written again.
func TestARetryFindsAnUnsettledRevertThatLandedLate(t *testing.T) {
	for _, audited := range []bool{true, false} {
		e := newHostEnv(t)
		e.claims.beforeMarks = true // a row approved before revert marks: its audit records tell
		c := e.approvedOnHost(t, "E-unsettled", map[string]any{"shipcountry": "Deutschland"}, ``)
		if audited {
			if err := e.op.Audit.(*audit.Log).Write(context.Background(), audit.Entry{Actor: identity.ForTenant("acme", "alice"),
				ActionType: audit.TypeSyncError, ActionKey: syncerror.AuditRevertUnsettled, Result: audit.ResultFailure, Resource: "syncerror/" + c.ID}); err != nil {
				t.Fatal(err)
			}
		}
		e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // the revert, landed late
		writes := e.host.WriteCount()
		row, got := e.retry(t, c.ID)
		rec, _ := e.host.Get("salesOrder", "SO-10042")
		switch {
		case audited && (got.Code != "RETRY_FIX_REVERTED" || row.Status != syncerror.StatusReverted || e.host.WriteCount() != writes):
			t.Fatalf("with the unsettled revert audited: attempt %+v, row %s, writes %+v", got, row.Status, e.host.Writes()[writes:])
		case !audited && rec.Fields["shipcountry"] != "DE":
			t.Fatalf("without it the lost fix was not written again: attempt %+v, the record holds %v", got, rec.Fields["shipcountry"])
		}
	}
}

// A revert whose answer was lost and that the record holds only part of (shipcountry back,
// shipzip still the fix's) is neither taken for a lost fix nor for a revert: nothing is
// written, and the row stays approved, not said to be reverted.
func TestARetryWritesNothingOverARevertThatLandedInPart(t *testing.T) {
	e := newHostEnv(t)
	e.claims.beforeMarks = true // as above
	c := e.approvedOnHost(t, "E-part", map[string]any{"shipcountry": "Deutschland", "shipzip": "1O115"},
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"shipzip","after":"10115"}]}`)
	if err := e.op.Audit.(*audit.Log).Write(context.Background(), audit.Entry{Actor: identity.ForTenant("acme", "alice"),
		ActionType: audit.TypeSyncError, ActionKey: syncerror.AuditRevertUnsettled, Result: audit.ResultFailure, Resource: "syncerror/" + c.ID}); err != nil {
		t.Fatal(err)
	}
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"}) // part of the revert
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if got.Code != "RETRY_REVERT_UNSETTLED" || row.Status != syncerror.StatusApproved || e.host.WriteCount() != writes {
		t.Fatalf("attempt %+v, row %s, writes %+v", got, row.Status, e.host.Writes()[writes:])
	}
}
