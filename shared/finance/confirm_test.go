package finance_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/tenant"
)

// An approve above the tenant's confirmation threshold (finance_ops.confirm_above, 10000
// by default) without {"confirm": true} is refused with 428 confirmation_required naming
// the amount and currency, before any lease or ERP call; confirmed, it goes through. A
// threshold of the tenant's own applies, and an amount at or below it needs no confirm.
func TestApproveAboveThresholdNeedsConfirm(t *testing.T) {
	cases := []struct {
		name, setting, amount string
		want                  int
	}{
		{"default threshold, above", "", "12480.00", http.StatusPreconditionRequired},
		{"default threshold, at it", "", "10000", http.StatusOK},
		{"credit above the default", "", "-12480.00", http.StatusPreconditionRequired},
		{"tenant threshold, below", "20000", "12480.00", http.StatusOK},
		{"tenant threshold 0 confirms all", "0", "99.00", http.StatusPreconditionRequired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			erp := &financetest.ERP{}
			f := newFixture(t, erp)
			f.svc.Tenants = f.tenants
			if c.setting != "" {
				setTenant(t, f, tenant.KeyFinanceConfirmAbove, c.setting)
			}
			a := financetest.SampleApproval(tenantID, "FA-1", f.clock.Now())
			a.ERPID, a.Amount = "VB-1", c.amount
			if _, err := f.mem.Create(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			w := f.call(approverAlice, http.MethodPost, base+"/FA-1/approve", "")
			if w.Code != c.want {
				t.Fatalf("unconfirmed approve: %d %s", w.Code, w.Body)
			}
			if c.want == http.StatusOK {
				return
			}
			wantProblem(t, w, http.StatusPreconditionRequired, finance.CodeConfirmationRequired)
			if !strings.Contains(w.Body.String(), c.amount+" EUR") {
				t.Fatalf("the problem does not name amount and currency: %s", w.Body)
			}
			if got := f.row("FA-1"); got.Status != finance.StatusPending || got.Lease != nil || len(erp.Calls()) != 0 || f.store.calls["BeginAccept"] != 0 {
				t.Fatalf("an unconfirmed approve changed something: %+v, %d ERP calls", got, len(erp.Calls()))
			}
			if w := f.approve(approverAlice, "FA-1"); w.Code != http.StatusOK {
				t.Fatalf("confirmed approve: %d %s", w.Code, w.Body)
			}
		})
	}
}

// A body that is not {"confirm": bool} is refused before anything is read.
func TestApproveBodyMalformed(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	f.mustCreate("FA-1", "VB-1")
	wantProblem(t, f.call(approverAlice, http.MethodPost, base+"/FA-1/approve", `{"confirm": "yes"}`), http.StatusBadRequest, "malformed_json")
}

func setTenant(t *testing.T, f *fixture, key, value string) {
	t.Helper()
	c, err := f.tenants.Get(context.Background(), tenantID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings == nil {
		c.Settings = map[string]string{}
	}
	c.Settings[key] = value
	if err := f.tenants.Update(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}
