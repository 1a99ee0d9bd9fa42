package finance_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// The ERP applies the PATCH and then fails its answer (500): the update landed, so the
// approve reads the record back and completes; the row is never pending, and a reject
// finds nothing to reject.
func TestERPErrorAfterTheWriteLandedCompletesTheApproval(t *testing.T) {
	var h *hostERP
	landedThen500 := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			h.fake.ServeHTTP(w, r)
			return
		}
		h.fake.ServeHTTP(httptest.NewRecorder(), r)
		w.WriteHeader(http.StatusInternalServerError)
	})
	f, hp := newGuardFixture(t, withHandler(landedThen500))
	h = hp
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	if w := f.approve(approverAlice, a.ID); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.DecidedBy != "alice" || h.fake.WriteCount() != 1 {
		t.Fatalf("row %+v after %d writes", got, h.fake.WriteCount())
	}
	wantProblem(t, f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", ""), http.StatusConflict, "not_pending")
}

// The same with the answer lost to the approve's own ERP deadline.
func TestERPTimeoutAfterTheWriteLandedCompletesTheApproval(t *testing.T) {
	var h *hostERP
	slowAnswer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fake.ServeHTTP(w, r)
		if r.Method != http.MethodGet {
			time.Sleep(600 * time.Millisecond) // applied, answered too late
		}
	})
	f, hp := newGuardFixture(t, withHandler(slowAnswer))
	h = hp
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	alice, _ := identity.Derive(approverAlice, nil)
	// A Lambda deadline that leaves the ERP call 300 ms.
	ctx, cancel := context.WithTimeout(context.Background(), finance.ERPReserve+300*time.Millisecond)
	defer cancel()
	if _, err := f.svc.Approve(ctx, alice, a.ID, nil); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || h.fake.WriteCount() != 1 {
		t.Fatalf("row %+v after %d writes", got, h.fake.WriteCount())
	}
}

var errLost = &connector.Error{System: connector.SystemHostERP, Op: connector.OpWrite, Err: connector.ErrUnavailable,
	Cause: context.DeadlineExceeded}

// An update whose answer was lost and whose record cannot be read either stays applying:
// 502 erp_outcome_unknown, no reject, no second approve while the lease holds. Once the
// lease expires the sweep reads the record, finds the update and completes the row,
// decided by the approver whose update it was.
func TestUnsettledUpdateIsCompletedByTheSweepFromTheERPRecord(t *testing.T) {
	erp := &financetest.ERP{Lost: errLost, ReadErr: errors.New("host ERP unreachable")}
	f := newFixture(t, erp)
	a := f.mustCreate("FA-1", "VB-1")
	wantProblem(t, f.approve(approverAlice, a.ID), http.StatusBadGateway, "erp_outcome_unknown")
	if got := f.row(a.ID); got.Status != finance.StatusApplying || got.Lease == nil {
		t.Fatalf("row %+v", got)
	}
	wantProblem(t, f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", ""), http.StatusConflict, "lease_held")
	held := f.approve(approverBob, a.ID)
	wantProblem(t, held, http.StatusConflict, "lease_held")
	// The answer says when the row is decided: a client waits for it, not a second.
	if ra := held.Header().Get("Retry-After"); ra != strconv.Itoa(int(finance.DefaultLeaseTTL/time.Second)+1) {
		t.Fatalf("lease_held Retry-After %q with the lease ending in %s", ra, finance.DefaultLeaseTTL)
	}
	if fails := f.auditsOf(finance.ActionApprove); len(fails) != 1 || details(t, fails[0])["cause"] != "erp_outcome_unknown" {
		t.Fatalf("finance.approve records %+v", fails)
	}

	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
	if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err == nil || n != 0 {
		t.Fatalf("sweep with the record unreadable: %d %v, want the row left", n, err)
	}
	if got := f.row(a.ID); got.Status != finance.StatusApplying {
		t.Fatalf("a row whose record could not be read was settled: %+v", got)
	}
	erp.ReadErr = nil
	if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || len(erp.Calls()) != 1 {
		t.Fatalf("row %+v after %d updates", got, len(erp.Calls()))
	}
}

// A gateway's 504 leaves the outcome open (the ERP may still apply the request): the row
// stays applying even though the record, read at once, does not hold the update. The
// sweep, reading it again after the lease, returns the row to pending.
func TestGatewayTimeoutLeavesTheRowForTheSweep(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	h.fake.FailNext(1, http.StatusGatewayTimeout)
	wantProblem(t, f.approve(approverAlice, a.ID), http.StatusBadGateway, "erp_outcome_unknown")
	if got := f.row(a.ID); got.Status != finance.StatusApplying {
		t.Fatalf("row %+v", got)
	}
	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
	if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if got := f.row(a.ID); got.Status != finance.StatusPending || h.fake.WriteCount() != 0 {
		t.Fatalf("row %+v after %d writes", got, h.fake.WriteCount())
	}
}

// A 429 without Retry-After refused the update unapplied: 503 connector_unavailable, not
// 502, and the row is pending again.
func TestRateLimitWithoutRetryAfterIsUnavailable(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	h.fake.FailNext(1, http.StatusTooManyRequests)
	wantProblem(t, f.approve(approverAlice, a.ID), http.StatusServiceUnavailable, "connector_unavailable")
	if got := f.row(a.ID); got.Status != finance.StatusPending || h.fake.WriteCount() != 0 {
		t.Fatalf("row %+v after %d writes", got, h.fake.WriteCount())
	}
}
