package finance_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
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
