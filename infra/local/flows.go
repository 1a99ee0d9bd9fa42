package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// demoFlows are the demo tenant's flows: the host ERP's customers to the CRM's accounts
// and back (so the reciprocal loop can happen), and sales orders to the shipping platform.
var demoFlows = []flow.Flow{
	{ID: "erp-customer-to-crm", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Mapping: map[string]string{"Name": "companyName", "Phone": "phone", "CreditLimit": "creditLimit"}},
	{ID: "crm-account-to-erp", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Mapping: map[string]string{"phone": "Phone", "email": "Email", "creditLimit": "CreditLimit"}, Filter: map[string]any{"Type": "Customer"}},
	{ID: "erp-order-to-shipping", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "salesOrder"}, Target: flow.Endpoint{System: connector.SystemShipping, Entity: "order"},
		Mapping: map[string]string{"orderNumber": "tranId", "shipPostalCode": "shipzip", "shipCountry": "shipcountry"}},
}

// demoOverrides give the host ERP the customer's credit and tax fields, and the account
// fields the ERP → CRM flow writes; the CRM keeps the rest of its accounts.
var demoOverrides = []governance.Entry{
	{Entity: "customer", Field: "creditLimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	{Entity: "customer", Field: "taxId", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	{Entity: "account", Field: "Name", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
	{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
	{Entity: "account", Field: "CreditLimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
}

// seedDemoFlows stores the demo flows and manifest overrides, and the records the flows
// write to in the fakes.
func seedDemoFlows(ctx context.Context, deps *compose.Stack, fakes fakeSystems) error {
	now := time.Now().UTC()
	for _, f := range demoFlows {
		f.UpdatedAt, f.UpdatedBy = now, "make run"
		if err := deps.Flows.Store.PutFlow(ctx, demoTenant, f); err != nil {
			return fmt.Errorf("seed flow %s: %w", f.ID, err)
		}
	}
	if m, ok := deps.Manifests().(*governance.TenantManifests); ok {
		if err := m.SetOverrides(ctx, demoTenant, demoOverrides); err != nil {
			return fmt.Errorf("seed manifest overrides: %w", err)
		}
	}
	fakes[connector.SystemCRM].Seed("Account", "C-2001", map[string]any{"Name": "Nordwind Handel GmbH", "Type": "Customer",
		"Phone": "+49 40 555 0100", "CreditLimit": 25000})
	fakes[connector.SystemShipping].Seed("order", "SO-10042", map[string]any{"orderNumber": "SO-10042", "shipCountry": "DE"})
	return nil
}

// refuseInvalidEmail makes the fake host ERP check e-mail addresses the way NetSuite's
// record service does: a write of an address without "@" answers 400 INVALID_FLD_VALUE.
// It is what turns the demo's bad CRM value into a failed flow run and a sync error.
func refuseInvalidEmail(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPatch && r.Method != http.MethodPut {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var doc map[string]any
		_ = json.Unmarshal(body, &doc)
		fields, _ := doc["fields"].(map[string]any)
		if fields == nil {
			fields = doc
		}
		if email, ok := fields["email"].(string); ok && !strings.Contains(email, "@") {
			w.Header().Set("Content-Type", "application/vnd.oracle.resource+json; type=error")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"type":"https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.1","title":"Bad Request","status":400,` +
				`"o:errorDetails":[{"detail":"Invalid email address.","o:errorCode":"INVALID_FLD_VALUE"}]}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// flowsDemo walks the cross-system story against the running local stack.
func flowsDemo(ctx context.Context) error {
	api, err := newLocalAPI(ctx, "admin")
	if err != nil {
		return err
	}
	step := func(n int, what string) { fmt.Printf("\n%d. %s\n", n, what) }
	tag, sent := time.Now().UTC().Format("150405"), 0
	event := func(system, entity, record string, fields map[string]any) (flow.Run, error) {
		sent++
		body, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("EV-%s-%d", tag, sent),
			"entity": entity, "recordId": record, "changedAt": time.Now().UTC().Format(time.RFC3339), "fields": fields})
		code, out, err := api.signed("/api/flows/events/"+system, body)
		if err != nil {
			return flow.Run{}, err
		}
		var acc flow.EventResponse
		if code != http.StatusAccepted || json.Unmarshal(out, &acc) != nil || len(acc.RunIDs) != 1 {
			return flow.Run{}, fmt.Errorf("change event answered %d %s", code, out)
		}
		_, out, err = api.do("GET", "/api/flows/runs/"+acc.RunIDs[0], nil, nil)
		var run flow.Run
		if err == nil {
			err = json.Unmarshal(out, &run)
		}
		fmt.Printf("   run %s of %s: %s — %s\n", run.ID, run.FlowID, run.Outcome, run.Decision)
		return run, err
	}
	step(1, "The host ERP changes customer C-2001's phone; the change flows to the CRM account:")
	phone := "+49 40 555 " + tag[2:]
	if _, err := event("hosterp", "customer", "C-2001", map[string]any{"phone": phone, "companyName": "Nordwind Handel GmbH"}); err != nil {
		return err
	}
	step(2, "A sales order changes; it flows to the shipping platform:")
	if _, err := event("hosterp", "salesOrder", "SO-10042", map[string]any{"tranId": "SO-10042", "shipzip": "10117", "shipcountry": "DE"}); err != nil {
		return err
	}
	step(3, "A CRM user raises the credit limit, which the host ERP owns: the write is rejected:")
	if _, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "CreditLimit": 99000}); err != nil {
		return err
	}
	step(4, "The CRM echoes step 1's phone back: the reciprocal write is detected as a loop and broken:")
	if _, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "Phone": phone}); err != nil {
		return err
	}
	step(5, "A CRM e-mail the host ERP refuses: the run fails and becomes a sync error in the queue:")
	run, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "Email": "einkauf(at)nordwind"})
	if err != nil {
		return err
	}
	if run.SyncErrorID == "" {
		return errors.New("the failed run has no sync error")
	}
	step(6, "It is diagnosed, then approved with the corrected address and written back to the host ERP:")
	detail := "/api/sync-error-assist/proposals/" + run.SyncErrorID
	if err := waitDiagnosed(api, detail); err != nil {
		return err
	}
	code, out, err := api.do("POST", detail+"/approve", []byte(`{"fix":[{"path":"email","after":"einkauf@nordwind.example"}],"note":"make demo-flows"}`), nil)
	if err != nil {
		return err
	}
	fmt.Printf("   approve: %d %s\n", code, firstLine(out))
	fmt.Printf("\nOwnership rejections and loop detections: the console's Governance panel, or\n"+
		"  curl -s %s/api/governance/loop-detections -H 'Authorization: %s'\nFlow runs: the console's Flows panel.\n", api.base, api.auth)
	return nil
}

func waitDiagnosed(api *localAPI, path string) error {
	for deadline := time.Now().Add(30 * time.Second); ; {
		code, out, err := api.do("GET", path, nil, nil)
		if err != nil {
			return err
		}
		var d syncerror.Detail
		if code == http.StatusOK && json.Unmarshal(out, &d) == nil && d.Diagnosis == syncerror.DiagnosisReady {
			fmt.Printf("   diagnosed: class %s — %s\n", d.Proposal.Class, d.Proposal.Summary)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no diagnosis after 30 s (last answer %d %s)", code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
