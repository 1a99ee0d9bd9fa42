package finance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/identity"
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

// The approve's body is closed (the document's additionalProperties: false): a member it
// does not name, such as a misspelt confirm, is refused naming it, nothing approved. It
// was ignored: the approve went on as an unconfirmed one (428 above the threshold,
// approved below it).
func TestApproveBodyUnknownMemberRefused(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	f.mustCreate("FA-1", "VB-1")
	w := f.call(approverAlice, http.MethodPost, base+"/FA-1/approve", `{"confirmed": true}`)
	wantProblem(t, w, http.StatusBadRequest, "validation_failed")
	if !strings.Contains(w.Body.String(), `"field":"confirmed"`) {
		t.Fatalf("the problem does not name the member: %s", w.Body)
	}
	if got := f.row("FA-1"); got.Status != finance.StatusPending || len(erp.Calls()) != 0 {
		t.Fatalf("a refused approve changed something: %+v, %d ERP calls", got, len(erp.Calls()))
	}
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

// The threshold holds when the unconfirmed approve takes over an expired lease: the row
// read first is applying, not pending (an approve that died before its ERP call).
func TestUnconfirmedTakeoverNeedsConfirm(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	f.svc.Tenants = f.tenants
	a := f.mustCreate("FA-1", "VB-1")
	if _, err := f.mem.BeginAccept(context.Background(), tenantID, a.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	w := f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/approve", "")
	wantProblem(t, w, http.StatusPreconditionRequired, finance.CodeConfirmationRequired)
	if len(erp.Calls()) != 0 {
		t.Fatalf("the unconfirmed takeover called the ERP %d times", len(erp.Calls()))
	}
}

// afterGetStore runs after once its first Get has read the row.
type afterGetStore struct {
	finance.Store
	once  atomic.Bool
	after func()
}

func (s *afterGetStore) Get(ctx context.Context, tenantID, id string) (finance.Approval, error) {
	a, err := s.Store.Get(ctx, tenantID, id)
	if s.once.CompareAndSwap(false, true) {
		s.after()
	}
	return a, err
}

// firstUnavailable fails its first update (nothing written) and confirms the others.
type firstUnavailable struct {
	erp   financetest.ERP
	calls atomic.Int32
}

func (e *firstUnavailable) Update(ctx context.Context, who identity.Identity, a finance.Approval, key string) (connector.WriteResult, error) {
	if e.calls.Add(1) == 1 {
		return connector.WriteResult{}, fmt.Errorf("down: %w", finance.ErrERPUnavailable)
	}
	return e.erp.Update(ctx, who, a, key)
}

func (e *firstUnavailable) Applied(ctx context.Context, who identity.Identity, a finance.Approval) (bool, error) {
	return e.erp.Applied(ctx, who, a)
}

// The threshold holds when the row was applying as the unconfirmed approve read it and
// pending again by its lease: alice's confirmed approve held the row, failed and reverted
// in between, and bob's unconfirmed approve must not write the amount nobody confirmed.
func TestUnconfirmedApproveOfARowThatWasApplyingNeedsConfirm(t *testing.T) {
	erp := &firstUnavailable{}
	g := newGate(erp, 1)
	f := newFixture(t, g)
	f.svc.Tenants = f.tenants
	a := f.mustCreate("FA-1", "VB-1") // 12480.00 EUR, above the default 10000
	resA := make(chan *httptest.ResponseRecorder)
	go func() { resA <- f.approve(approverAlice, a.ID) }()
	g.waitEntered(t, 1)
	f.svc.Store = &afterGetStore{Store: f.store, after: func() {
		g.open(1)
		if w := <-resA; w.Code != http.StatusServiceUnavailable {
			t.Errorf("alice: %d %s", w.Code, w.Body)
		}
	}}
	w := f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/approve", "")
	wantProblem(t, w, http.StatusPreconditionRequired, finance.CodeConfirmationRequired)
	if n := len(erp.erp.Calls()); n != 0 {
		t.Fatalf("bob's unconfirmed approve wrote %s %s to the ERP (%d writes)", a.Amount, a.Currency, n)
	}
}
