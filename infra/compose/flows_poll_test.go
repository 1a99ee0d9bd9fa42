package compose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/tenant"
)

// The CRM as a source that cannot push: a poll flow reads its changed accounts through
// the Salesforce profile (SOQL on SystemModstamp) from the fake, and writes the host ERP
// through the guard, once per change, on the schedule's entry point.
func TestPollFlowReadsChangesOnceAndShowsHowThePollWent(t *testing.T) {
	f := newFlows(t)
	body := `{"enabled": true, "trigger": "poll", "source": {"system": "crm", "entity": "Account"},
	  "target": {"system": "hosterp", "entity": "customer"}, "mapping": {"email": "Email"}}`
	if w := f.call(t, "admin@demo", "PUT", "/api/settings/flows/crm-poll", body); w.Code != http.StatusCreated ||
		!strings.Contains(w.Body.String(), `"trigger":"poll"`) {
		t.Fatalf("PUT poll flow: %d %s", w.Code, w.Body)
	}
	f.crm.Seed("Account", "C-1", map[string]any{"Phone": "+49 40 1", "CreditLimit": 5000, "Type": "Customer", "Email": "polled@example.com"})

	var ev events.EventBridgeEvent
	loadEvent(t, blueprint.FuncFlowPoll+".json", &ev)
	poll, err := flowwire.PollLambda(context.Background(), f.deps.Base)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := poll(context.Background(), ev)
	if err != nil || rep.Sources != 1 || rep.Runs != 1 || rep.Failed != 0 {
		t.Fatalf("poll %+v err %v, want one source and one run", rep, err)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "polled@example.com" {
		t.Fatalf("ERP customer %v", rec.Fields)
	}
	w := f.call(t, "operator@demo", "GET", "/api/flows/runs?flowId=crm-poll", "")
	var runs struct {
		Items []struct{ EventID, Outcome string } `json:"items"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &runs); err != nil || len(runs.Items) != 1 ||
		runs.Items[0].Outcome != "written" || !strings.HasPrefix(runs.Items[0].EventID, "poll:") {
		t.Fatalf("poll flow runs: %d %s", w.Code, w.Body)
	}
	// The event flow of the same source did not run for the polled change.
	if w := f.call(t, "operator@demo", "GET", "/api/flows/runs?flowId=crm-account-to-erp", ""); strings.Contains(w.Body.String(), `"id"`) {
		t.Fatalf("the event flow ran for a polled change: %s", w.Body)
	}

	// Polled again with nothing new: the change is recognised and nothing is written.
	writes := f.erp.WriteCount()
	if rep, err := poll(context.Background(), ev); err != nil || rep.Runs != 0 || f.erp.WriteCount() != writes {
		t.Fatalf("second poll %+v err %v with %d new writes", rep, err, f.erp.WriteCount()-writes)
	}

	// The org's API limit is reached: the poll says so in the integration status, and the
	// next poll catches up.
	f.crm.FailNextWithCode(1, http.StatusForbidden, "REQUEST_LIMIT_EXCEEDED")
	f.crm.Seed("Account", "C-1", map[string]any{"Type": "Customer", "Email": "later@example.com"})
	if rep, _ := poll(context.Background(), ev); rep.Failed != 1 {
		t.Fatalf("poll against the limit %+v, want the source failed", rep)
	}
	status := f.call(t, "operator@demo", "GET", "/api/flows/status", "")
	if !strings.Contains(status.Body.String(), `"error":"reading crm/Account failed: rate_limited"`) {
		t.Fatalf("status after a failed poll: %d %s", status.Code, status.Body)
	}
	if rep, err := poll(context.Background(), ev); err != nil || rep.Runs != 1 {
		t.Fatalf("catch-up poll %+v err %v", rep, err)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "later@example.com" {
		t.Fatalf("ERP customer after the catch-up %v", rec.Fields)
	}
	if status := f.call(t, "operator@demo", "GET", "/api/flows/status", ""); strings.Contains(status.Body.String(), `"error"`) {
		t.Fatalf("the poll error outlived the catch-up: %s", status.Body)
	}
}

// A tenant switched off (sync_error_assist.enabled not 'true') gets no scheduled flow
// writes either: the poll and the redrive skip it, say so, and catch up once it is on.
func TestSwitchedOffTenantsAreNeitherPolledNorRedriven(t *testing.T) {
	f := newFlows(t)
	ctx := context.Background()
	body := `{"enabled": true, "trigger": "poll", "source": {"system": "crm", "entity": "Account"},
	  "target": {"system": "hosterp", "entity": "customer"}, "mapping": {"email": "Email"}}`
	if w := f.call(t, "admin@demo", "PUT", "/api/settings/flows/crm-poll", body); w.Code != http.StatusCreated {
		t.Fatalf("PUT poll flow: %d %s", w.Code, w.Body)
	}
	f.crm.Seed("Account", "C-1", map[string]any{"Type": "Customer", "Email": "while-off@example.com"})
	admin := tenant.Admin{Store: f.deps.Tenants}
	if err := admin.Set(ctx, "demo", tenant.KeyEnabled, "false"); err != nil {
		t.Fatal(err)
	}
	rep, err := flowwire.PollAll(ctx, f.deps.Base, f.deps.Flows.Poller)
	if err != nil || rep.TenantsOff != 1 || rep.Runs != 0 || rep.Sources != 0 {
		t.Fatalf("poll while off %+v %v", rep, err)
	}
	if red, err := flowwire.RedriveAll(ctx, f.deps.Base, f.deps.Flows.Exec); err != nil || red.TenantsOff != 1 {
		t.Fatalf("redrive while off %+v %v", red, err)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != nil {
		t.Fatalf("a switched-off tenant was written: %v", rec.Fields)
	}
	if err := admin.Set(ctx, "demo", tenant.KeyEnabled, "true"); err != nil {
		t.Fatal(err)
	}
	if rep, err := flowwire.PollAll(ctx, f.deps.Base, f.deps.Flows.Poller); err != nil || rep.TenantsOff != 0 || rep.Runs != 1 {
		t.Fatalf("poll once on %+v %v", rep, err)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "while-off@example.com" {
		t.Fatalf("ERP customer after switching on %v", rec.Fields)
	}
}
