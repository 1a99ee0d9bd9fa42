package finance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// holdApprove makes vendor bills need an ownership approval, lets alice's approve be held
// (409, the row pending again) and has bob release the hold in governance.
func holdApprove(t *testing.T, f *fixture, h *hostERP, a finance.Approval) {
	t.Helper()
	holdAndRelease(t, f, h, a, h.records)
}

// heldBeforeReleaseByRetry is the governance store as an approval held before
// WriteRequest.ReleaseByRetry was stored reads back: without the flag.
type heldBeforeReleaseByRetry struct{ governance.RecordStore }

func (s heldBeforeReleaseByRetry) DecideApproval(ctx context.Context, tenant, id string, from, to governance.ApprovalStatus, by string, at time.Time) (governance.PendingApproval, error) {
	a, err := s.RecordStore.DecideApproval(ctx, tenant, id, from, to, by, at)
	a.Request.ReleaseByRetry = false
	return a, err
}

func (s heldBeforeReleaseByRetry) RetakeRelease(ctx context.Context, tenant, id string, staleBefore time.Time, by string, at time.Time) (governance.PendingApproval, error) {
	a, err := s.RecordStore.RetakeRelease(ctx, tenant, id, staleBefore, by, at)
	a.Request.ReleaseByRetry = false
	return a, err
}

// holdAndRelease is holdApprove with the governance store records.
func holdAndRelease(t *testing.T, f *fixture, h *hostERP, a finance.Approval, records governance.RecordStore) {
	t.Helper()
	if err := h.overrides.PutOverrides(context.Background(), tenantID, []governance.Entry{
		{Entity: "vendorBill", Owner: connector.SystemERP2, Policy: governance.PolicyRequireApproval}}); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, f.approve(approverAlice, a.ID), http.StatusConflict, "ownership_approval_required")
	held := h.records.Approvals()
	if len(held) != 1 {
		t.Fatalf("%d held writes", len(held))
	}
	gov := &governance.Service{Records: records, Guard: h.guard, Audit: f.svc.Audit.(*audit.Log), Now: f.clock.Now}
	r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+held[0].ID+"/approve", nil)
	r.SetPathValue("id", held[0].ID)
	w := httptest.NewRecorder()
	gov.ApproveHandler().ServeHTTP(w, r.WithContext(identity.WithAuth(r.Context(), *approverBob)))
	if w.Code != http.StatusOK {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
}

// Releasing the held update does not write the ERP: the finance row is pending and may
// still be rejected, and a rejected approval must never reach the ERP.
func TestReleasedHoldDoesNotWriteARejectableRow(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	holdApprove(t, f, h, a)
	if n := h.fake.WriteCount(); n != 0 {
		rec, _ := h.fake.Get(a.Entity, a.ERPID)
		t.Fatalf("the release wrote the ERP (%d writes, approvalStatus=%v) while the row is %s", n,
			rec.Fields["approvalStatus"], f.row(a.ID).Status)
	}
	if w := f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", `{"reason":"changed my mind"}`); w.Code != http.StatusOK {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	if n := h.fake.WriteCount(); n != 0 {
		t.Fatalf("a rejected approval was written to the ERP %d times", n)
	}
}

// Once released, the next approve of the row writes the update through, once.
func TestReleasedHoldIsWrittenByTheNextApprove(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	holdApprove(t, f, h, a)
	if w := f.approve(approverAlice, a.ID); w.Code != http.StatusOK {
		t.Fatalf("approve after the release: %d %s", w.Code, w.Body)
	}
	rec, _ := h.fake.Get(a.Entity, a.ERPID)
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || h.fake.WriteCount() != 1 || rec.Fields["approvalStatus"] != "approved" {
		t.Fatalf("row %+v, %d writes, record %v", got, h.fake.WriteCount(), rec.Fields)
	}
}

// A finance update held before ReleaseByRetry was stored has no flag: its release still
// only approves it (governance knows it by its reason, finance.approve), so a row pending
// meanwhile is never written by the release and a reject still keeps it from the ERP.
// Before, the release of such a hold wrote the ERP at once.
func TestAHoldFromBeforeReleaseByRetryIsNotWrittenByItsRelease(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	holdAndRelease(t, f, h, a, heldBeforeReleaseByRetry{h.records})
	if n := h.fake.WriteCount(); n != 0 {
		t.Fatalf("the release of a hold from before the flag wrote the ERP %d times while the row is %s", n, f.row(a.ID).Status)
	}
	if w := f.approve(approverAlice, a.ID); w.Code != http.StatusOK {
		t.Fatalf("approve after the release: %d %s", w.Code, w.Body)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || h.fake.WriteCount() != 1 {
		t.Fatalf("row %+v after %d writes", got, h.fake.WriteCount())
	}
}
