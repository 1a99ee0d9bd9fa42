package wire

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row approved by this version is told by its revert marks: the revert marks the row
// before it sends, so a revert that nothing recorded after its write (not the guard's
// ledger, not the row's marking, not the audit log) is still found, and a row without a
// mark had no revert of this version sent, so a lost fix is written again with no audit
// read (the ledger is still asked, for a revert of the version before marks:
// revertmark_mixeddeploy_test.go).
// (The rows of the version before are told as before: hostretry_reverted_test.go and
// hostretry_revert_audited_test.go.)

// revertedUntold approves fix on SO-10042 (it held fields), then reverts it with the
// guard's ledger, the row's marking and the revert's audit record all failing: 202, and
// the record holds fields again; neither the ledger nor the audit log has the revert.
func (e *hostEnv) revertedUntold(t *testing.T, errorID string, fields map[string]any, fix string) syncerror.Claim {
	t.Helper()
	c := e.approvedOnHost(t, errorID, fields, fix)
	e.op.Assist.Store = unmarkedReverts{e.op.Assist.Store}
	e.ledger.failing = true
	e.audits.mu.Lock()
	e.audits.failing[syncerror.AuditRevert] = true
	e.audits.mu.Unlock()
	w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`)
	e.ledger.failing = false
	e.audits.mu.Lock()
	e.audits.failing[syncerror.AuditRevert] = false
	e.audits.mu.Unlock()
	if w.Code != http.StatusAccepted {
		t.Fatalf("revert with its every record failing: %d %s", w.Code, w.Body)
	}
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	for k, v := range fields {
		if rec.Fields[k] != v {
			t.Fatalf("after the revert the record holds %v", rec.Fields)
		}
	}
	ctx := context.Background()
	if found, err := governance.Wrote(ctx, e.ledger, "acme", "salesOrder", "SO-10042", c.Applied.At, syncerror.RevertKey(c)); found || err != nil {
		t.Fatalf("the ledger has the revert (%v, %v)", found, err)
	}
	if found, err := e.op.Audit.(*audit.Log).Has(ctx, audit.Query{TenantID: "acme", ActionType: audit.TypeSyncError, ActionKey: syncerror.AuditRevert,
		Resource: "syncerror/" + c.ID, From: c.Applied.At, To: e.now.Add(48 * time.Hour)}); found || err != nil {
		t.Fatalf("the audit log has the revert (%v, %v)", found, err)
	}
	return c
}

// countedReads replaces the retry's ledger and audit log with counting ones.
func (e *hostEnv) countedReads() (*countedLedger, *countedAudits) {
	l := &countedLedger{Ledger: e.ledger}
	a := &countedAudits{log: e.op.Audit.(*audit.Log)}
	e.rt.Deliver = deliverer{guard: e.guard, hosts: e.clients, ledger: l, audits: a}
	return l, a
}

// A revert nothing recorded after its write: the retry finds the row's mark and the record
// holding every value the revert sent, writes nothing, asks for no re-run and ends the row
// reverted, without a ledger or audit read.
func TestARetryDoesNotWriteTheFixOverARevertNothingRecorded(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUntold(t, "E-untold", map[string]any{"shipcountry": "Deutschland"}, ``)
	l, a := e.countedReads()
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); e.host.WriteCount() != writes || rec.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("the fix was reverted; the retry wrote %+v and the record holds %v", e.host.Writes()[writes:], rec.Fields["shipcountry"])
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FIX_REVERTED" || !strings.Contains(got.Reason, "Nothing was written") ||
		row.Status != syncerror.StatusReverted {
		t.Fatalf("attempt %+v, row %s", got, row.Status)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the host ERP was asked to re-run the sync with a fix that was reverted")
	}
	if l.reads+a.reads != 0 {
		t.Fatalf("the row told it; still %d ledger and %d audit reads", l.reads, a.reads)
	}
}

// The record holds part of what the revert sent: neither the fix nor the revert is written
// on a guess, the row stays approved, and nothing but the row is read.
func TestARetryWritesNothingOverAMarkedRevertTheRecordHoldsInPart(t *testing.T) {
	e := newHostEnv(t)
	c := e.revertedUntold(t, "E-part-marked", map[string]any{"shipcountry": "Deutschland", "shipzip": "1O115"},
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"shipzip","after":"10115"}]}`)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"}) // shipzip holds the fix again
	l, a := e.countedReads()
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if got.Code != "RETRY_REVERT_UNSETTLED" || row.Status != syncerror.StatusApproved || e.host.WriteCount() != writes || l.reads+a.reads != 0 {
		t.Fatalf("attempt %+v, row %s, writes %+v, %d ledger and %d audit reads", got, row.Status, e.host.Writes()[writes:], l.reads, a.reads)
	}
}

// A row approved by this version, never reverted, whose fix the host ERP's own sync
// overwrote: no mark, so no revert was ever sent. The lost fix is written again and the
// re-run asked for, with no audit read, however late the retry (the ledger, which has
// nothing past its day, is asked).
func TestARetryWritesALostFixOfAMarkedRowWithoutReadingTheAuditLog(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-lost-marked", map[string]any{"shipcountry": "Deutschland"}, ``)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // the ERP's sync lost the fix
	e.now = e.now.Add(governance.LedgerRetention + time.Hour)                           // past the ledger's day
	l, a := e.countedReads()
	_, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "DE" || got.Result != syncerror.DeliveryRequested {
		t.Fatalf("the lost fix was not written again: attempt %+v, the record holds %v", got, rec.Fields["shipcountry"])
	}
	if fix, asked := e.requestedFix(t, c); !asked || fix["shipcountry"] != "DE" {
		t.Fatalf("re-run asked for %v (%v)", fix, asked)
	}
	if l.reads == 0 || a.reads != 0 {
		t.Fatalf("no revert was sent, and the row says so; %d ledger and %d audit reads", l.reads, a.reads)
	}
}
