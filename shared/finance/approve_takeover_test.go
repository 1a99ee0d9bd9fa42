package finance_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/governance"
)

// crashAfterERP runs alice's approve until the ERP took the update, then stops it as a
// killed Lambda would, before the applied marker; it leaves the lease expired.
func crashAfterERP(t *testing.T, f *fixture, h *hostERP, a finance.Approval) {
	t.Helper()
	crashed := false
	f.svc.Hooks.AfterERPUpdate = func(context.Context, finance.Approval) {
		if !crashed {
			crashed = true
			panic("lambda killed")
		}
	}
	func() {
		defer func() { _ = recover() }()
		f.approve(approverAlice, a.ID)
	}()
	f.svc.Hooks.AfterERPUpdate = nil
	if h.fake.WriteCount() != 1 || f.row(a.ID).Status != finance.StatusApplying {
		t.Fatalf("setup: %d writes, row %+v", h.fake.WriteCount(), f.row(a.ID))
	}
	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
}

// The record moved on after alice's update (the ERP's own workflow paid the bill): bob's
// takeover must not write the approval's values over it again.
func TestTakeoverDoesNotWriteAgainWhatTheExpiredHolderWrote(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	crashAfterERP(t, f, h, a)
	h.fake.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "paid", "amount": a.Amount, "vendor": a.Vendor})
	if w := f.approve(approverBob, a.ID); w.Code != http.StatusOK {
		t.Fatalf("bob: %d %s", w.Code, w.Body)
	}
	rec, _ := h.fake.Get(a.Entity, a.ERPID)
	if n := h.fake.WriteCount(); n != 1 || rec.Fields["approvalStatus"] != "paid" {
		t.Fatalf("the ERP applied the approval %d times; record now approvalStatus=%v", n, rec.Fields["approvalStatus"])
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted {
		t.Fatalf("row %+v", got)
	}
}

// After the same crash, bob's takeover would meet a failing ERP (rate limited): the
// approval was written by alice, so it is completed, never reverted to pending, and a
// reject finds nothing to reject.
func TestTakeoverOfAWrittenRowIsNeverRevertedByAFailure(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	crashAfterERP(t, f, h, a)
	h.fake.FailNext(1, http.StatusTooManyRequests)
	f.approve(approverBob, a.ID)
	if got := f.row(a.ID); got.Status != finance.StatusAccepted {
		t.Fatalf("a written approval ended %s (lastError %q)", got.Status, got.LastError)
	}
	wantProblem(t, f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", ""), http.StatusConflict, "not_pending")
}

// Bob's approve takes alice's expired lease and finds her update in the ledger: the
// decision is alice's, whose update it was (as the sweep records it), not bob's, who
// wrote nothing.
func TestTakeoverCompletionIsDecidedByTheHolderWhoWrote(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	crashAfterERP(t, f, h, a)
	if w := f.approve(approverBob, a.ID); w.Code != http.StatusOK {
		t.Fatalf("bob: %d %s", w.Code, w.Body)
	}
	if got := f.row(a.ID); got.DecidedBy != "alice" || h.fake.WriteCount() != 1 {
		t.Fatalf("decidedBy=%q after %d ERP writes; alice's update was the only one", got.DecidedBy, h.fake.WriteCount())
	}
}

// The same crash, completed by the sweep instead: alice decided it.
func TestSweepCompletionIsDecidedByTheHolderWhoWrote(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	crashAfterERP(t, f, h, a)
	if _, err := f.svc.SweepExpiredLeases(t.Context(), tenantID, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if got := f.row(a.ID); got.DecidedBy != "alice" {
		t.Fatalf("decidedBy=%q", got.DecidedBy)
	}
}

// flakyLedger fails its next fail reads, as DynamoDB throttling would.
type flakyLedger struct {
	governance.Ledger
	mu   sync.Mutex
	fail int
}

func (l *flakyLedger) Recent(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]governance.LedgerEntry, error) {
	l.mu.Lock()
	failing := l.fail > 0
	if failing {
		l.fail--
	}
	l.mu.Unlock()
	if failing {
		return nil, errors.New("dynamodb: throttled")
	}
	return l.Ledger.Recent(ctx, tenantID, entity, recordID, since)
}

// Alice wrote the ERP and died; the ERP's workflow then paid the bill. Bob's approve
// cannot read the ledger (throttled): it says so (503 outcome_unverified), writes nothing
// and leaves alice's lease as it was, so the sweep still looks for her update from when
// she took the lease, finds it and completes the row in her name. Before, bob's takeover
// held the row under his own lease, the sweep looked only since then, missed alice's
// entry, found the record paid, returned the written row to pending, and the next approve
// wrote the ERP a second time.
func TestAnUnreadableTakeoverLeavesTheFirstHoldersWriteForTheSweep(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	crashAfterERP(t, f, h, a)
	h.fake.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "paid", "amount": a.Amount, "vendor": a.Vendor})
	f.svc.Ledger = &flakyLedger{Ledger: h.ledger, fail: 1}
	before := f.row(a.ID)
	f.clock.Advance(time.Second)
	w := f.approve(approverBob, a.ID)
	wantProblem(t, w, http.StatusServiceUnavailable, "outcome_unverified")
	if got := f.row(a.ID); got.Status != finance.StatusApplying || *got.Lease != *before.Lease || !got.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("bob's unverified approve changed the row: %+v", got)
	}
	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
	if _, err := f.svc.SweepExpiredLeases(t.Context(), tenantID, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	got := f.row(a.ID)
	f.approve(approverBob, a.ID)
	rec, _ := h.fake.Get(a.Entity, a.ERPID)
	if got.Status != finance.StatusAccepted || got.DecidedBy != "alice" || h.fake.WriteCount() != 1 {
		t.Fatalf("alice's written approval was swept to %s by %q (lastError %q); %d ERP writes, approvalStatus now %v",
			got.Status, got.DecidedBy, got.LastError, h.fake.WriteCount(), rec.Fields["approvalStatus"])
	}
}
