package finance_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
)

func TestSweepReturnsExpiredLeasesOnce(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	ctx := context.Background()
	const expired = 7
	for i := range expired + 2 {
		a := f.mustCreate(fmt.Sprintf("FA-%d", i), fmt.Sprintf("VB-%d", i))
		ttl := time.Minute
		if i >= expired {
			ttl = time.Hour // still held
		}
		if _, err := f.mem.BeginAccept(ctx, tenantID, a.ID, finance.NewLease(t0, ttl), t0); err != nil {
			t.Fatal(err)
		}
	}
	other := financetest.SampleApproval("globex", "FA-0", t0)
	if _, err := f.mem.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := f.mem.BeginAccept(ctx, "globex", other.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(10 * time.Minute)

	// Overlapping reconciles: every expired row is reverted and audited exactly once.
	var total atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			n, err := f.svc.SweepExpiredLeases(ctx, tenantID, now)
			if err != nil {
				t.Error(err)
			}
			total.Add(int32(n))
		})
	}
	wg.Wait()
	if total.Load() != expired {
		t.Fatalf("sweeps reverted %d rows, want %d", total.Load(), expired)
	}
	recs := f.auditsOf(finance.ActionLeaseExpired)
	if len(recs) != expired {
		t.Fatalf("%d lease_expired records, want %d", len(recs), expired)
	}
	for _, r := range recs {
		if r.Result != "failure" || r.TenantID != tenantID || r.Actor.Actor != "schedule:reconcile" {
			t.Fatalf("record %+v", r)
		}
	}
	for i := range expired + 2 {
		got := f.row(fmt.Sprintf("FA-%d", i))
		want := finance.StatusPending
		if i >= expired {
			want = finance.StatusApplying
		}
		if got.Status != want {
			t.Fatalf("FA-%d is %s, want %s", i, got.Status, want)
		}
		if want == finance.StatusPending && (got.Lease != nil || got.LastError == "") {
			t.Fatalf("reverted row %+v", got)
		}
	}
	if got, _ := f.mem.Get(ctx, "globex", other.ID); got.Status != finance.StatusApplying {
		t.Fatalf("another tenant's lease was swept: %+v", got)
	}
	if n, err := f.svc.SweepExpiredLeases(ctx, tenantID, now); err != nil || n != 0 {
		t.Fatalf("second sweep: %d %v", n, err)
	}
	// A reverted row is approvable again.
	f.clock.Advance(10 * time.Minute)
	if w := f.approve(approverAlice, "FA-0"); w.Code != http.StatusOK {
		t.Fatalf("approve after the sweep: %d %s", w.Code, w.Body)
	}
}

// More expired leases than one page: the sweep keeps reading until none is left.
func TestSweepPagesThroughManyExpiredLeases(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	ctx := context.Background()
	const n = 230
	for i := range n {
		a := f.mustCreate(fmt.Sprintf("FA-%03d", i), "VB-1")
		if _, err := f.mem.BeginAccept(ctx, tenantID, a.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.svc.SweepExpiredLeases(ctx, tenantID, t0.Add(time.Hour))
	if err != nil || got != n {
		t.Fatalf("swept %d, %v; want %d", got, err, n)
	}
}

func TestDemoApprovals(t *testing.T) {
	rows := finance.DemoApprovals(tenantID, t0)
	if len(rows) < 3 || len(rows) > 4 {
		t.Fatalf("%d demo rows", len(rows))
	}
	withoutERP := 0
	f := newFixture(t, &financetest.ERP{})
	for _, a := range rows {
		if a.ERPID == "" {
			withoutERP++
		}
		if a.TenantID != tenantID || a.Status != finance.StatusPending || !finance.ValidID(a.ID) || a.CreatedAt.After(t0) {
			t.Fatalf("demo row %+v", a)
		}
		// Each row is one the create route would have accepted.
		body := fmt.Sprintf(`{"approvalId":%q,"erpId":%q,"entity":%q,"amount":%q,"currency":%q,"vendor":%q,"description":%q,"requestedBy":%q,"fields":%s}`,
			a.ID, a.ERPID, a.Entity, a.Amount, a.Currency, a.Vendor, a.Description, a.RequestedBy, a.Fields)
		parsed, errs, err := finance.ParseCreate(tenantID, []byte(body))
		if err != nil || len(errs) > 0 {
			t.Fatalf("demo row %s would be refused: %v %v", a.ID, errs, err)
		}
		parsed.CreatedAt, parsed.UpdatedAt = a.CreatedAt, a.UpdatedAt
		if fmt.Sprint(parsed) != fmt.Sprint(a) {
			t.Fatalf("demo row %s differs from its parse:\n%+v\n%+v", a.ID, a, parsed)
		}
		if created, err := f.mem.Create(context.Background(), a); err != nil || !created {
			t.Fatal(err)
		}
	}
	if withoutERP != 1 {
		t.Fatalf("%d demo rows without erp_id, want 1", withoutERP)
	}
	for _, a := range rows {
		w := f.approve(approverAlice, a.ID)
		if a.ERPID == "" {
			wantProblem(t, w, http.StatusBadRequest, "missing_erp_id")
		} else if w.Code != http.StatusOK {
			t.Fatalf("approve demo %s: %d %s", a.ID, w.Code, w.Body)
		}
	}
}

// Alice wrote the ERP and died; her lease was then taken over by an approve that wrote
// nothing and stopped too (as one did before takeovers read the evidence first), and the
// ERP's workflow paid the bill. The row's UpdatedAt is that takeover's, after alice's
// ledger entry: the sweep looks for the update from when the applying spell began (the
// lease's Since, or the row's creation for a lease taken before Since was kept), finds
// hers and completes the row, never returning it to pending to be written again.
func TestSweepFindsAnUpdateMadeBeforeTheLeaseWasTakenOver(t *testing.T) {
	for _, tc := range []struct {
		name  string
		since func(alice finance.Lease) time.Time
	}{
		{"the takeover carried the spell's start", func(alice finance.Lease) time.Time { return alice.Since }},
		{"a lease taken before Since was kept", func(finance.Lease) time.Time { return time.Time{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, h := newGuardFixture(t)
			a := f.mustCreate("FA-1", "VB-1")
			f.clock.Advance(time.Minute) // the row was created before alice's approve
			h.seed(a)
			crashAfterERP(t, f, h, a)
			alice := *f.row(a.ID).Lease
			f.clock.Advance(time.Second)
			taken := finance.Lease{Token: "tok-bob", ExpiresAt: f.clock.Now().Add(time.Minute), Holder: "bob", Since: tc.since(alice)}
			if _, err := f.mem.TakeOver(t.Context(), tenantID, a.ID, alice.Token, taken, f.clock.Now()); err != nil {
				t.Fatal(err)
			}
			h.fake.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "paid", "amount": a.Amount, "vendor": a.Vendor})
			f.clock.Advance(2 * time.Minute)
			if _, err := f.svc.SweepExpiredLeases(t.Context(), tenantID, f.clock.Now()); err != nil {
				t.Fatal(err)
			}
			if got := f.row(a.ID); got.Status != finance.StatusAccepted {
				t.Fatalf("a written approval was swept to %s (lastError %q)", got.Status, got.LastError)
			}
		})
	}
}
