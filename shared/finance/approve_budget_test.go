package finance_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/governance"
)

// spentBudget is an account whose shared rate budget has no room for 42 seconds.
type spentBudget struct{}

func (spentBudget) Take(context.Context, string, connector.System, int) (func(), time.Duration, error) {
	return nil, 42 * time.Second, nil
}

func (spentBudget) Observe(context.Context, string, connector.System, int, http.Header) {}

// An approve whose write finds the host ERP account's rate budget spent sends nothing and
// answers 503 with the budget's wait as Retry-After; the row is pending again, so the
// write is deferred to the approver's next try, not lost (issue 34).
func TestApproveWithoutRateBudgetIsDeferred(t *testing.T) {
	f, h := newGuardFixture(t, func(c *hostConfigs, _ *governance.Deps) { c.budget = spentBudget{} })
	a := financetest.SampleApproval(tenantID, "FA-1", t0)
	a.ERPID = "VB-1"
	if _, err := f.mem.Create(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	h.seed(a)
	w := f.approve(approverAlice, a.ID)
	wantProblem(t, w, http.StatusServiceUnavailable, "connector_unavailable")
	if got := w.Header().Get("Retry-After"); got != "42" {
		t.Fatalf("Retry-After %q, want the budget's 42 seconds", got)
	}
	if row := f.row(a.ID); row.Status != finance.StatusPending || row.Lease != nil {
		t.Fatalf("row %+v, want pending again", row)
	}
	if n := h.fake.Requests(); n != 0 {
		t.Fatalf("%d requests reached the ERP without budget", n)
	}
}
