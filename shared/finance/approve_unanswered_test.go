package finance_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

// productionLikeConfigs is the host ERP connector as production configures it: the
// client's default three attempts (only the backoff shortened for the test).
type productionLikeConfigs struct{ url string }

func (c productionLikeConfigs) ConnectorConfig(_ context.Context, tenant string, sys connector.System) (connector.Config, error) {
	if sys != connector.SystemHostERP {
		return connector.Config{AllowLoopback: true}, fmt.Errorf("no %s: %w", sys, connector.ErrNotConfigured)
	}
	return connector.Config{AllowLoopback: true, System: sys, BaseURL: c.url,
		BaseBackoff: 5 * time.Millisecond, MaxBackoff: 10 * time.Millisecond}, nil
}

// The ERP's gateway answers the approve's PATCH 504 while the ERP goes on and commits it;
// the client's second try (after a read that does not find it yet) is refused 429
// (NetSuite's concurrency limit: the first request is still running). The approve must
// take that for a lost answer, not for "nothing was written": the client used to return
// the last try's 429, which MayHaveApplied calls "not applied", so the approve reverted
// the row to pending with 503, and the approval could then be rejected although the ERP
// record held it.
func TestUpdateUnansweredThenRateLimitedIsNotReportedUnwritten(t *testing.T) {
	f := newFixture(t, nil)
	fake := fakesystem.New(connector.SystemHostERP)
	var patches atomic.Int32
	var landed sync.WaitGroup
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fake.ServeHTTP(w, r)
			return
		}
		if patches.Add(1) == 1 {
			body, _ := io.ReadAll(r.Body)
			late := r.Clone(context.Background())
			landed.Add(1)
			go func() { // committed behind the gateway, after the client's re-read
				defer landed.Done()
				time.Sleep(300 * time.Millisecond)
				late.Body = io.NopCloser(bytes.NewReader(body))
				fake.ServeHTTP(httptest.NewRecorder(), late)
			}()
			w.WriteHeader(http.StatusGatewayTimeout)
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
	})
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	registry := connector.NewRegistry(productionLikeConfigs{url: srv.URL}, time.Hour)
	ledger := &governancetest.Ledger{}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    ledger, Records: &governancetest.Store{}, Scanner: dlp.NewScanner(),
		Audit: f.svc.Audit.(*audit.Log), Alerter: &governancetest.Alerts{}, Now: f.clock.Now,
		Connectors: governance.RegistryConnectors(registry),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.ERP = finance.GuardUpdater{Guard: g, Records: registry}
	f.svc.Ledger = ledger

	a := f.mustCreate("FA-1", "VB-1")
	fake.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "pendingApproval", "amount": a.Amount, "vendor": a.Vendor})

	w := f.approve(approverAlice, a.ID)
	landed.Wait()
	rec, _ := fake.Get(a.Entity, a.ERPID)
	t.Logf("approve answered %d %s; ERP record now %v; row %s", w.Code, w.Body, rec.Fields, f.row(a.ID).Status)
	if rec.Fields["approvalStatus"] != "approved" {
		t.Fatalf("set-up: the first PATCH did not land: %v", rec.Fields)
	}
	if got := f.row(a.ID); got.Status == finance.StatusPending {
		t.Errorf("the ERP holds the approval, but the row is pending again (answer %d: %s)", w.Code, w.Body)
	}
	if rj := f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", ""); rj.Code == http.StatusOK {
		t.Errorf("the approval was rejected although the ERP record holds it: %s", rj.Body)
	}
}
