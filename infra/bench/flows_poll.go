package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/tenant"
)

// pollBench measures a poll of one source: n CRM accounts change, and one poll reads them
// through the Salesforce profile (SOQL pages of 200) and runs a poll flow for each, a
// guarded write of the host ERP's fake. A poll works one change at a time, so this is the
// sequential rate a source's changes are carried at.
func pollBench(ctx context.Context, deps *compose.Stack, crm *fakesystem.Server, n int) error {
	erp := fakesystem.New(connector.SystemHostERP)
	srv := httptest.NewServer(erp.Handler())
	defer srv.Close()
	for i := 0; i < n; i++ {
		erp.Seed("customer", accountID(100, i), map[string]any{"phone": "+49 40 0"})
	}
	if err := (tenant.Admin{Store: deps.Tenants}).SetConnector(ctx, "bench", string(connector.SystemHostERP), srv.URL, ""); err != nil {
		return err
	}
	overrides := []governance.Entry{
		{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "phone", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
	}
	if err := deps.Manifests().(*governance.TenantManifests).SetOverrides(ctx, "bench", overrides); err != nil {
		return err
	}
	// The fake keeps each record's modification time strictly increasing by whole
	// seconds, so accounts the flow bench wrote several times in one second carry times a
	// second or two ahead; the poll flow is put after those, to read only this bench's.
	time.Sleep(3 * time.Second)
	pollFlow := flow.Flow{ID: "crm-account-to-erp-polled", Enabled: true, Trigger: flow.TriggerPoll,
		Source: benchFlow.Target, Target: benchFlow.Source, Mapping: map[string]string{"phone": "Phone"}, UpdatedAt: time.Now().UTC()}
	if err := flow.NewDynamoStore(deps.DB, deps.Config.Table(blueprint.Flows)).PutFlow(ctx, "bench", pollFlow); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		crm.Seed("Account", accountID(100, i), map[string]any{"Phone": fmt.Sprintf("+49 40 %d", 5000+i), "Name": "Bench"})
	}
	p := *deps.Flows.Poller
	p.Budget, p.Page = n, 200
	start := time.Now()
	rep, err := p.Poll(ctx, "bench")
	took := time.Since(start)
	if err != nil {
		return err
	}
	fmt.Printf("poll of one source: %d changes read, %d runs, %d host ERP writes in %s = %.0f changes/s (sequential: a read of the page, then one guarded write each)\n",
		rep.Changes, rep.Runs, erp.WriteCount(), took.Round(time.Millisecond), float64(rep.Changes)/took.Seconds())
	if rep.Runs != n || erp.WriteCount() != n {
		return fmt.Errorf("poll ran %d runs and %d writes for %d changes", rep.Runs, erp.WriteCount(), n)
	}
	return nil
}
