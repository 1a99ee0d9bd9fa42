package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/tenant"
)

// benchFlow carries the host ERP's customer phone to the CRM's Account, as the demo's
// mirrored flow does: each event is one run, one guarded write, one CRM PATCH.
var benchFlow = flow.Flow{ID: "erp-customer-to-crm", Enabled: true,
	Source:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
	Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
	Mapping: map[string]string{"Phone": "phone"}}

// flowSetup points the bench tenant's CRM at a Salesforce-shaped fake with n accounts per
// round seeded, and stores the flow and an ownership override that lets the host ERP write
// the phone. The returned stop closes the fake.
func flowSetup(ctx context.Context, deps *compose.Stack, n, rounds int) (*fakesystem.Server, string, func(), error) {
	crm := fakesystem.New(connector.SystemCRM)
	srv := httptest.NewServer(crm.Handler())
	for r := -1; r < 2*rounds; r++ {
		for i := 0; i < n; i++ {
			crm.Seed("Account", accountID(r, i), map[string]any{"Phone": "+49 40 0", "Name": "Bench"})
		}
	}
	if err := (tenant.Admin{Store: deps.Tenants}).SetConnector(ctx, "bench", string(connector.SystemCRM), srv.URL, ""); err != nil {
		srv.Close()
		return nil, "", nil, err
	}
	overrides := []governance.Entry{{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}}
	if err := deps.Manifests().(*governance.TenantManifests).SetOverrides(ctx, "bench", overrides); err != nil {
		srv.Close()
		return nil, "", nil, err
	}
	store := flow.NewDynamoStore(deps.DB, deps.Config.Table(blueprint.Flows))
	if err := store.PutFlow(ctx, "bench", benchFlow); err != nil {
		srv.Close()
		return nil, "", nil, err
	}
	return crm, srv.URL, srv.Close, nil
}

// directWrites makes the same CRM writes as bare PATCHes of the Salesforce fake: no run, no
// guard, no read-compare-write (the architecture test keeps connector writes in the guard).
func directWrites(ctx context.Context, crmURL string, n, conc, round int) loadgen.Result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	return measure("bare CRM PATCH (no run, no guard, no read)", n, conc, func(i int) error {
		body := strings.NewReader(fmt.Sprintf(`{"Phone":"+49 40 %d"}`, 1000+i))
		req, err := http.NewRequestWithContext(ctx, http.MethodPatch, crmURL+"/services/data/v62.0/sobjects/Account/"+accountID(round, i), body)
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

// flowEvents posts n signed change events of the host ERP at conc, each changing one
// customer's phone, and checks each answer started exactly one run.
func flowEvents(ctx context.Context, url string, key []byte, n, conc, round int) loadgen.Result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	return measure("flow event → guarded CRM write, over HTTP", n, conc, func(i int) error {
		eventID := fmt.Sprintf("ev-%d-%d", round, i)
		body, _ := json.Marshal(map[string]any{"eventId": eventID, "entity": "customer",
			"recordId": accountID(round, i), "changedAt": time.Now().UTC().Format(time.RFC3339),
			"fields": map[string]any{"phone": fmt.Sprintf("+49 40 %d", 1000+i)}})
		// The webhook-id a relay following docs/flow-sources.md derives from the event.
		msgID := flow.EventMessageID(connector.SystemHostERP, eventID)
		ans, err := loadgen.PostSigned(ctx, client, url, "bench", key, msgID, body)
		if err != nil {
			return err
		}
		var out struct{ RunIDs []string }
		if ans.Status != http.StatusAccepted || json.Unmarshal(ans.Body, &out) != nil || len(out.RunIDs) != 1 {
			return fmt.Errorf("status %d: %s", ans.Status, ans.Body)
		}
		return nil
	})
}

func accountID(round, i int) string { return fmt.Sprintf("C-%d-%d", round+1, i) }
