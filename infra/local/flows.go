package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
)

// demoFlows are the demo tenant's flows: the host ERP's customers to the CRM's accounts
// and back (so the reciprocal loop can happen), sales orders to the shipping platform,
// and, polled, the shipping platform's order status back to the sales order.
var demoFlows = []flow.Flow{
	{ID: "erp-customer-to-crm", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Mapping: map[string]string{"Name": "companyName", "Phone": "phone", "CreditLimit": "creditLimit"}},
	{ID: "crm-account-to-erp", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Mapping: map[string]string{"phone": "Phone", "email": "Email", "creditLimit": "CreditLimit"}, Filter: map[string]any{"Type": "Customer"}},
	// ShipStation's orders resource: the order's top-level fields (its ship-to address is a
	// nested object a flat mapping cannot address); the write goes out as createorder.
	{ID: "erp-order-to-shipping", Enabled: true,
		Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "salesOrder"}, Target: flow.Endpoint{System: connector.SystemShipping, Entity: "orders"},
		Mapping: map[string]string{"orderNumber": "tranId", "customerEmail": "email", "shipByDate": "shipDate"}},
	// ShipStation cannot push order changes with their content, so this flow polls it: an
	// order's status comes back to the host ERP's sales order on the reconcile schedule.
	{ID: "shipping-order-to-erp", Enabled: true, Trigger: flow.TriggerPoll,
		Source: flow.Endpoint{System: connector.SystemShipping, Entity: "orders"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "salesOrder"},
		Mapping: map[string]string{"custbody_sea_ship_status": "orderStatus"}},
}

// demoOverrides give the host ERP the customer's credit and tax fields, and the account
// fields the ERP → CRM flow writes; the CRM keeps the rest of its accounts, and the
// shipping platform the sales order's ship status.
var demoOverrides = []governance.Entry{
	{Entity: "customer", Field: "creditLimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	{Entity: "customer", Field: "taxId", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	{Entity: "account", Field: "Name", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
	{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
	{Entity: "account", Field: "CreditLimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	// The host ERP owns its sales orders, except the ship status the shipping platform
	// reports back (the polled flow).
	{Entity: "salesOrder", Field: "custbody_sea_ship_status", Owner: connector.SystemShipping, Policy: governance.PolicySourceWins},
}

// seedDemoFlows stores the demo flows and manifest overrides, and the records the flows
// write to in the fakes.
func seedDemoFlows(ctx context.Context, deps *compose.Stack, fakes fakeSystems) error {
	now := time.Now().UTC()
	for _, f := range demoFlows {
		f.UpdatedAt, f.UpdatedBy, f.Match = now, "make run", demoMatches[f.ID]
		if err := deps.Flows.Store.PutFlow(ctx, demoTenant, f); err != nil {
			return fmt.Errorf("seed flow %s: %w", f.ID, err)
		}
	}
	if m, ok := deps.Manifests().(*governance.TenantManifests); ok {
		if err := m.SetOverrides(ctx, demoTenant, demoOverrides); err != nil {
			return fmt.Errorf("seed manifest overrides: %w", err)
		}
	}
	seedFakeFlowTargets(fakes)
	return seedDemoXRef(ctx, deps.Flows.Exec.XRefs, now)
}

// demoFlowRecord is the record the demo's events are about, per source entity. The
// customer flows find their counterpart through the cross-reference (demoMatches; the
// seeded Account keeps the id C-2001 and is linked at start), the order flows write the
// target record with the source record's id.
var demoFlowRecord = map[string]string{"customer": "C-2001", "Account": "C-2001", "salesOrder": "SO-10042", "orders": "SO-10042"}

// seedFakeFlowTargets puts the records the demo flows write to into the fakes, where the
// vendor profiles address them: the CRM's Account C-2001 as a Salesforce sObject row, and
// ShipStation's order SO-10042 in the orders resource, whose orderKey makes the
// connector's createorder update it rather than create another. (The host ERP's customers
// C-2001 and C-2002 are newFakeSystems' own.)
func seedFakeFlowTargets(fakes fakeSystems) {
	fakes[connector.SystemCRM].Seed("Account", "C-2001", map[string]any{"Name": "Nordwind Handel GmbH", "Type": "Customer",
		"Phone": "+49 40 555 0100", "CreditLimit": 25000, erpIDField: "C-2001"})
	// make demo-retry's account (retryAccount): no field of it is another system's.
	fakes[connector.SystemCRM].Seed("Account", retryAccount, map[string]any{"Name": "Südwind Handel GmbH", "Type": "Customer",
		"Email": "info@suedwind.example", erpIDField: retryAccount})
	fakes[connector.SystemShipping].Seed("orders", "SO-10042", map[string]any{
		"orderNumber": "SO-10042", "orderKey": "SO-10042", "orderDate": "2026-11-20T09:00:00.0000000", "orderStatus": "awaiting_shipment",
		"customerEmail": "einkauf@nordwind.example",
		"shipTo":        map[string]any{"name": "Nordwind Handel GmbH", "street1": "Friedrichstraße 1", "city": "Berlin", "postalCode": "10117", "country": "DE"},
	})
}

// netsuiteRecordPath is where NetSuite's record service (and the fake host ERP) keeps records.
const netsuiteRecordPath = "/services/rest/record/v1/"

// refuseInvalidEmail makes the fake host ERP check e-mail addresses the way NetSuite's
// record service does: a PATCH of a record whose body sets an address without "@"
// answers 400 with NetSuite's error body, code INVALID_FLD_VALUE, and changes nothing.
// The connector reads that as a validation error, which the flow treats as permanent: it
// is what turns the demo's bad CRM value into a failed flow run and a sync error.
func refuseInvalidEmail(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPatch || !strings.HasPrefix(r.URL.Path, netsuiteRecordPath) {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var fields map[string]any
		_ = json.Unmarshal(body, &fields)
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
	// Event ids are unique per run of the demo, to the nanosecond: a demo run takes about a
	// second, and a second run's events must not be answered as redeliveries of the first's.
	now := time.Now().UTC()
	tag, runTag, sent := now.Format("150405"), strconv.FormatInt(now.UnixNano(), 36), 0
	// event posts a change and checks its one run ended as the story says it should.
	event := func(system, entity, record string, fields map[string]any, want flow.Outcome) (flow.Run, error) {
		sent++
		id := fmt.Sprintf("EV-%s-%d", runTag, sent)
		body, _ := json.Marshal(map[string]any{"eventId": id,
			"entity": entity, "recordId": record, "changedAt": time.Now().UTC().Format(time.RFC3339), "fields": fields})
		code, out, err := api.flowEvent(connector.System(system), id, body)
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
		if err != nil {
			return run, err
		}
		fmt.Printf("   run %s of %s: %s — %s\n", run.ID, run.FlowID, run.Outcome, run.Decision)
		if run.Outcome != want {
			return run, fmt.Errorf("run %s ended %s, want %s", run.ID, run.Outcome, want)
		}
		return run, nil
	}
	step(1, "The host ERP changes customer C-2001's phone; the change flows to the CRM account:")
	phone := "+49 40 555 " + tag[2:]
	if _, err := event("hosterp", "customer", "C-2001", map[string]any{"phone": phone, "companyName": "Nordwind Handel GmbH"}, flow.OutcomeWritten); err != nil {
		return err
	}
	if err := xrefDemo(api, tag, runTag); err != nil {
		return err
	}
	step(2, "A sales order changes; it flows to the shipping platform:")
	if _, err := event("hosterp", "salesOrder", "SO-10042", map[string]any{"tranId": "SO-10042", "email": "einkauf@nordwind.example",
		"shipDate": time.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02")}, flow.OutcomeWritten); err != nil {
		return err
	}
	step(3, "A CRM user raises the credit limit, which the host ERP owns: the write is rejected:")
	if _, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "CreditLimit": 99000}, flow.OutcomeRejected); err != nil {
		return err
	}
	step(4, "The CRM echoes step 1's phone back: the value would return to where it came from, so the write is broken as a loop:")
	if _, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "Phone": phone}, flow.OutcomeLoopBroken); err != nil {
		return err
	}
	step(5, "A CRM e-mail the host ERP refuses: the run fails and becomes a sync error in the queue:")
	run, err := event("crm", "Account", "C-2001", map[string]any{"Type": "Customer", "Email": "bestellung(at)nordwind"}, flow.OutcomeFailed)
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
	const corrected = "bestellung@nordwind.example"
	code, out, err := api.do("POST", detail+"/approve", []byte(`{"fix":[{"path":"email","after":"`+corrected+`"}],"note":"make demo-flows"}`), nil)
	if err != nil {
		return err
	}
	fmt.Printf("   approve: %d %s\n", code, firstLine(out))
	if code != http.StatusOK {
		return fmt.Errorf("approve answered %d", code)
	}
	// The fake host ERP's record, read as NetSuite's record service serves it.
	customer, err := api.fakeRecord("/fake/hosterp" + netsuiteRecordPath + "customer/C-2001")
	if err != nil {
		return err
	}
	if customer["email"] != corrected {
		return fmt.Errorf("the host ERP's customer C-2001 has email %v after the approve, want %s", customer["email"], corrected)
	}
	fmt.Printf("   the host ERP's customer C-2001 now has email %s\n", corrected)
	step(7, "The warehouse ships order SO-10042 in the shipping platform, which cannot push; the poll reads it:")
	if err := pollDemo(api, "shipped-"+tag); err != nil {
		return err
	}
	fmt.Println("\nEvery step went as the story says.")
	fmt.Printf("\nOwnership rejections and loop detections: the console's Governance panel, or\n"+
		"  curl -s %s/api/governance/loop-detections -H 'Authorization: %s'\nFlow runs: the console's Flows panel.\n", api.base, api.auth)
	return nil
}

// pollDemo changes the order in the fake ShipStation as a user of it would (createorder
// with the order's orderKey updates it), runs the backstops (the reconcile schedule's
// poll among them) and checks the status reached the host ERP's sales order.
func pollDemo(api *localAPI, status string) error {
	const order = "/fake/shipping/orders/"
	o, err := api.fakeRecord(order + "SO-10042")
	if err != nil {
		return err
	}
	o["orderStatus"] = status
	body, _ := json.Marshal(o)
	if code, out, err := api.do("POST", order+"createorder", body, http.Header{}); err != nil || code != http.StatusOK {
		return fmt.Errorf("createorder answered %d %s (%v)", code, firstLine(out), err)
	}
	if code, out, err := api.do("POST", "/local/reconcile", nil, nil); err != nil || code != http.StatusOK {
		return fmt.Errorf("the backstops answered %d %s (%v)", code, firstLine(out), err)
	}
	so, err := api.fakeRecord("/fake/hosterp" + netsuiteRecordPath + "salesOrder/SO-10042")
	if err != nil {
		return err
	}
	if so["custbody_sea_ship_status"] != status {
		return fmt.Errorf("the host ERP's sales order has ship status %v after the poll, want %s", so["custbody_sea_ship_status"], status)
	}
	fmt.Printf("   the poll found the change and the host ERP's sales order SO-10042 now has ship status %s\n", status)
	return nil
}

// fakeRecord reads a record of a fake system (no credentials) as its vendor serves it.
func (api *localAPI) fakeRecord(path string) (map[string]any, error) {
	code, out, err := api.do("GET", path, nil, http.Header{})
	var rec map[string]any
	if err == nil && (code != http.StatusOK || json.Unmarshal(out, &rec) != nil) {
		err = fmt.Errorf("%s answered %d %s", path, code, firstLine(out))
	}
	return rec, err
}

func waitDiagnosed(api *localAPI, path string) error {
	for deadline := time.Now().Add(30 * time.Second); ; {
		code, out, err := api.do("GET", path, nil, nil)
		if err != nil {
			return err
		}
		var d queue.Detail
		// Ready with its proposal: once, on moto under -race, a read beside the diagnosis's
		// completing UpdateItem (one update setting both) saw ready with no proposal. Our
		// assumption: moto applies an update's SETs in turn; DynamoDB applies it whole.
		if code == http.StatusOK && json.Unmarshal(out, &d) == nil && d.Diagnosis == syncerror.DiagnosisReady && d.Proposal != nil {
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
