package compose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// flows is the whole service with a fake host ERP and a fake CRM over real HTTP, the two
// mirrored customer flows and a manifest in which the host ERP owns credit limits.
type flows struct {
	*env
	erp, crm *fakesystem.Server
	api      http.Handler
}

var mirroredFlows = []string{
	`{"enabled": true, "source": {"system": "hosterp", "entity": "customer"}, "target": {"system": "crm", "entity": "Account"},
	  "mapping": {"Phone": "phone", "CreditLimit": "creditlimit"}}`,
	`{"enabled": true, "source": {"system": "crm", "entity": "Account"}, "target": {"system": "hosterp", "entity": "customer"},
	  "mapping": {"phone": "Phone", "creditlimit": "CreditLimit", "email": "Email"}, "filter": {"Type": "Customer"}}`,
}

func newFlows(t *testing.T) *flows {
	t.Helper()
	t.Setenv("CONNECTOR_TIMEOUT", "300ms")
	e := newEnv(t, sqsqueue.CreateOptions{})
	f := &flows{env: e, erp: fakesystem.New(connector.SystemHostERP), crm: fakesystem.New(connector.SystemCRM)}
	ctx := context.Background()
	for _, s := range []*fakesystem.Server{f.erp, f.crm} {
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		if err := (tenant.Admin{Store: e.deps.Tenants}).SetConnector(ctx, "demo", string(s.System()), srv.URL, ""); err != nil {
			t.Fatal(err)
		}
	}
	f.erp.Seed("customer", "C-1", map[string]any{"phone": "+49 40 1", "creditlimit": 5000})
	f.erp.DefineEntity("customer", "email") // the field a fix of a flow's failed write sets
	f.crm.Seed("Account", "C-1", map[string]any{"Phone": "+49 40 1", "CreditLimit": 5000, "Type": "Customer"})
	overrides := []governance.Entry{
		{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "account", Field: "CreditLimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
		{Entity: "customer", Field: "creditlimit", Owner: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert},
	}
	if err := e.deps.Manifests().(*governance.TenantManifests).SetOverrides(ctx, "demo", overrides); err != nil {
		t.Fatal(err)
	}
	e.deps.Tokens = identitytest.RoleTokens{}
	api, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	f.api = api
	for i, body := range mirroredFlows {
		id := []string{"erp-customer-to-crm", "crm-account-to-erp"}[i]
		if w := f.call(t, "admin@demo", "PUT", "/api/settings/flows/"+id, body); w.Code != http.StatusCreated {
			t.Fatalf("PUT flow %s: %d %s", id, w.Code, w.Body)
		}
	}
	return f
}

func (f *flows) call(t *testing.T, token, method, path, body string) *httptest.ResponseRecorder {
	return serve(f.api, token, method, path, body)
}

// event posts a signed change event and returns its run ids.
func (f *flows) event(t *testing.T, system, eventID, entity string, fields map[string]any) (ids []string, duplicate bool) {
	t.Helper()
	w := f.post(system, fixtureSecret, webhook.NewMessageID(), changeEvent(eventID, entity, fields))
	if w.Code != http.StatusAccepted {
		t.Fatalf("event %s: %d %s", eventID, w.Code, w.Body)
	}
	var out struct {
		RunIDs    []string `json:"runIds"`
		Duplicate bool     `json:"duplicate"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out.RunIDs, out.Duplicate
}

func changeEvent(eventID, entity string, fields map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"eventId": eventID, "entity": entity, "recordId": "C-1",
		"changedAt": fixtureTime.Format("2006-01-02T15:04:05Z"), "fields": fields})
	return body
}

// post sends a change event to system's path signed with secret under webhook-id msgID.
func (f *flows) post(system, secret, msgID string, body []byte) *httptest.ResponseRecorder {
	key, _ := webhook.ParseSecret(secret)
	r := httptest.NewRequest("POST", "/api/flows/events/"+system, strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Tenant-Id", "demo")
	webhook.Sign(key, msgID, fixtureTime, body).Set(r.Header)
	w := httptest.NewRecorder()
	f.api.ServeHTTP(w, r)
	return w
}

// The deployed wiring verifies each source with its own secret and claims webhook-ids in
// the flows table: the ingest secret, a replayed webhook-id and another source's secret
// change nothing in the host ERP.
func TestFlowEventsAuthenticateTheirSource(t *testing.T) {
	f := newFlows(t)
	ctx := context.Background()
	// The environment gives every purpose the fixture secret; the CRM gets its own.
	crm, err := (tenant.Admin{Store: f.deps.Tenants}).RotateSecret(ctx, "demo", tenant.FlowPurpose("crm"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	body := changeEvent("ev-auth", "Account", map[string]any{"Type": "Customer", "Email": "new@example.com"})
	// The ingest's secret (in this environment every other source's too) is refused…
	if w := f.post("crm", fixtureSecret, "msg_ingest", body); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "invalid_signature") {
		t.Fatalf("signed with the ingest secret: %d %s", w.Code, w.Body)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != nil {
		t.Fatalf("host ERP customer %v after a refused event", rec.Fields)
	}
	// … the CRM's own is accepted…
	if w := f.post("crm", crm, "msg_crm", body); w.Code != http.StatusAccepted {
		t.Fatalf("signed by the CRM: %d %s", w.Code, w.Body)
	}
	// … and its webhook-id once more, validly signed for the host ERP's path: a replay.
	if w := f.post("hosterp", fixtureSecret, "msg_crm", changeEvent("ev-auth", "customer", map[string]any{"email": "x@example.com"})); w.Code != http.StatusConflict {
		t.Fatalf("replayed webhook-id: %d %s", w.Code, w.Body)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "new@example.com" {
		t.Fatalf("host ERP customer %v: want only the CRM's signed change", rec.Fields)
	}
}

type runView struct {
	ID, FlowID, Outcome, Decision, SyncErrorID string
	Fields                                     []string
}

func (f *flows) run(t *testing.T, id string) runView {
	t.Helper()
	w := f.call(t, "operator@demo", "GET", "/api/flows/runs/"+id, "")
	if w.Code != http.StatusOK {
		t.Fatalf("run %s: %d %s", id, w.Code, w.Body)
	}
	var v runView
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func (f *flows) onlyRun(t *testing.T, ids []string) runView {
	t.Helper()
	if len(ids) != 1 {
		t.Fatalf("run ids %v, want one", ids)
	}
	return f.run(t, ids[0])
}

func TestFlowWritesThroughTheGuardAndAnswersARedeliveryWithItsRuns(t *testing.T) {
	f := newFlows(t)
	ids, dup := f.event(t, "hosterp", "ev-1", "customer", map[string]any{"phone": "+49 40 2"})
	if r := f.onlyRun(t, ids); r.Outcome != "written" || r.FlowID != "erp-customer-to-crm" || strings.Join(r.Fields, ",") != "Phone" || dup {
		t.Fatalf("run %+v duplicate %v, want written Phone", r, dup)
	}
	if rec, _ := f.crm.Get("Account", "C-1"); rec.Fields["Phone"] != "+49 40 2" {
		t.Fatalf("CRM Account %v", rec.Fields)
	}
	again, dup := f.event(t, "hosterp", "ev-1", "customer", map[string]any{"phone": "+49 40 3"})
	if !dup || strings.Join(again, ",") != strings.Join(ids, ",") || f.crm.WriteCount() != 1 {
		t.Fatalf("redelivery: ids %v dup %v, %d CRM writes; want the same runs and no write", again, dup, f.crm.WriteCount())
	}
	// An event of an entity no flow reads starts nothing; a filter that does not hold skips.
	if ids, _ := f.event(t, "hosterp", "ev-2", "invoice", map[string]any{"total": 1}); len(ids) != 0 {
		t.Fatalf("unmatched event started %v", ids)
	}
	ids, _ = f.event(t, "crm", "ev-3", "Account", map[string]any{"Type": "Partner", "Email": "a@example.com"})
	if r := f.onlyRun(t, ids); r.Outcome != "skipped" || !strings.Contains(r.Decision, "filter on Type") {
		t.Fatalf("filtered run %+v", r)
	}
}

// echoChain is the hop chain of the ERP's phone coming back from the CRM.
const echoChain = "returns to hosterp/customer: hosterp/customer/C-1.phone → crm/Account/C-1.Phone → hosterp/customer/C-1.phone"

func TestFlowOwnershipRejectionAndLoopBreak(t *testing.T) {
	f := newFlows(t)
	// A CRM write of the ERP-owned credit limit is refused and recorded.
	ids, _ := f.event(t, "crm", "ev-credit", "Account", map[string]any{"Type": "Customer", "CreditLimit": 9000})
	if r := f.onlyRun(t, ids); r.Outcome != "rejected" {
		t.Fatalf("credit limit run %+v, want rejected", r)
	}
	// The governance listings end at now, exclusive; the records are from fixture time.
	f.deps.Now = func() time.Time { return fixtureTime.Add(time.Second) }
	if w := f.call(t, "approver@demo", "GET", "/api/governance/ownership-rejections", ""); !strings.Contains(w.Body.String(), "creditlimit") {
		t.Fatalf("ownership rejections: %d %s", w.Code, w.Body)
	}
	// The ERP's phone change flows to the CRM; the CRM's echo of it is the loop's return leg.
	ids, _ = f.event(t, "hosterp", "ev-phone", "customer", map[string]any{"phone": "+49 40 7"})
	if r := f.onlyRun(t, ids); r.Outcome != "written" {
		t.Fatalf("ERP→CRM run %+v", r)
	}
	erpWrites := f.erp.WriteCount()
	ids, _ = f.event(t, "crm", "ev-echo", "Account", map[string]any{"Type": "Customer", "Phone": "+49 40 7"})
	if r := f.onlyRun(t, ids); r.Outcome != "loop_broken" || !strings.Contains(r.Decision, echoChain) {
		t.Fatalf("echo run %+v, want loop_broken", r)
	}
	if f.erp.WriteCount() != erpWrites {
		t.Fatal("the echo reached the host ERP")
	}
	f.deps.Now = func() time.Time { return fixtureTime.Add(2 * time.Second) }
	if w := f.call(t, "approver@demo", "GET", "/api/governance/loop-detections", ""); !strings.Contains(w.Body.String(), echoChain) {
		t.Fatalf("loop detections: %d %s", w.Code, w.Body)
	}
	w := f.call(t, "operator@demo", "GET", "/api/flows/runs?outcome=loop_broken", "")
	if w.Code != http.StatusOK || strings.Count(w.Body.String(), `"outcome":"loop_broken"`) != 1 {
		t.Fatalf("runs filtered by outcome: %d %s", w.Code, w.Body)
	}
}

func TestFlowPermanentFailureIsASyncErrorAndTransientOnesAreRedriven(t *testing.T) {
	f := newFlows(t)
	f.erp.FailNext(1, http.StatusBadRequest)
	ids, _ := f.event(t, "crm", "ev-bad", "Account", map[string]any{"Type": "Customer", "Email": "not-an-address"})
	r := f.onlyRun(t, ids)
	if r.Outcome != "failed" || r.SyncErrorID == "" {
		t.Fatalf("run %+v, want failed with its sync error", r)
	}
	c, err := f.deps.Claims.Get(context.Background(), "demo", r.SyncErrorID)
	if err != nil || c.Record.RecordType != "customer" || c.Record.RecordID != "C-1" || c.Source != "flow" ||
		c.Record.ExternalSystem != "hosterp" || !strings.Contains(c.Record.Message, "crm-account-to-erp") {
		t.Fatalf("sync error %+v err %v", c, err)
	}
	if h := f.health(t, "hosterp"); h != "failing" {
		t.Fatalf("host ERP health after its only write failed: %s", h)
	}
	msgs := f.drain(t, blueprint.Diagnosis.Name)
	if len(msgs) != 1 || !strings.Contains(msgs[0], r.SyncErrorID) {
		t.Fatalf("diagnosis queue %v, want the flow's sync error", msgs)
	}
	// Diagnosed and approved with a corrected value, the fix is the run's write corrected:
	// to the host ERP in the CRM's name, which owns email (a write in the ERP's own name
	// would lose it to source_wins).
	if resp, err := f.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m", Body: msgs[0]}}}); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker: %+v %v", resp, err)
	}
	w := f.call(t, "approver@demo", "POST", "/api/sync-error-assist/proposals/"+r.SyncErrorID+"/approve",
		`{"fix":[{"path":"email","after":"a@example.com"}],"note":"corrected"}`)
	if w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "a@example.com" {
		t.Fatalf("ERP customer after the approve %v", rec.Fields)
	}

	// Unavailable for every attempt of the first try: the run retries, and the redrive
	// writes it once the ERP answers again.
	f.erp.FailNext(3, http.StatusServiceUnavailable)
	ids, _ = f.event(t, "crm", "ev-later", "Account", map[string]any{"Type": "Customer", "Email": "b@example.com"})
	if r := f.onlyRun(t, ids); r.Outcome != "retrying" {
		t.Fatalf("run %+v, want retrying", r)
	}
	f.deps.Now = func() time.Time { return fixtureTime.Add(10 * time.Minute) }
	var ev events.EventBridgeEvent
	loadEvent(t, blueprint.FuncFlowRedrive+".json", &ev)
	redrive, err := flowwire.RedriveLambda(context.Background(), f.deps.Base)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := redrive(context.Background(), ev); err != nil || rep.Attempted != 1 {
		t.Fatalf("redrive %+v err %v", rep, err)
	}
	if r := f.onlyRun(t, ids); r.Outcome != "written" {
		t.Fatalf("redriven run %+v", r)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] != "b@example.com" {
		t.Fatalf("ERP customer %v", rec.Fields)
	}
	if h := f.health(t, "hosterp"); h != "degraded" {
		t.Fatalf("host ERP health after a failure and a write: %s", h)
	}
}

// health is a target system's health in the integration status.
func (f *flows) health(t *testing.T, system string) string {
	t.Helper()
	w := f.call(t, "operator@demo", "GET", "/api/flows/status", "")
	var st struct {
		Systems []struct{ System, Health, LastFailure string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &st); w.Code != http.StatusOK || err != nil {
		t.Fatalf("status: %d %s", w.Code, w.Body)
	}
	for _, s := range st.Systems {
		if s.System == system {
			if s.Health != "ok" && s.Health != "idle" && s.LastFailure == "" {
				t.Errorf("%s is %s without a last failure", system, s.Health)
			}
			return s.Health
		}
	}
	t.Fatalf("status lists no %s: %s", system, w.Body)
	return ""
}

func TestFlowSettingsAreAdminOnlyAndValidated(t *testing.T) {
	f := newFlows(t)
	if w := f.call(t, "operator@demo", "GET", "/api/settings/flows", ""); w.Code != http.StatusForbidden {
		t.Fatalf("operator reading settings: %d", w.Code)
	}
	w := f.call(t, "admin@demo", "GET", "/api/settings/flows", "")
	if w.Code != http.StatusOK || strings.Count(w.Body.String(), `"id":`) != 2 {
		t.Fatalf("list: %d %s", w.Code, w.Body)
	}
	bad := `{"enabled": true, "source": {"system": "nope", "entity": "x"}, "target": {"system": "crm", "entity": ""}, "mapping": {}}`
	w = f.call(t, "admin@demo", "PUT", "/api/settings/flows/bad", bad)
	for _, field := range []string{"source.system", "target.entity", "mapping"} {
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"`+field+`"`) {
			t.Fatalf("invalid flow: %d %s, want an error on %s", w.Code, w.Body, field)
		}
	}
	if w := f.call(t, "admin@demo", "DELETE", "/api/settings/flows/crm-account-to-erp", ""); w.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "admin@demo", "GET", "/api/settings/flows/crm-account-to-erp", ""); w.Code != http.StatusNotFound {
		t.Fatalf("deleted flow: %d", w.Code)
	}
	if w := f.call(t, "admin@demo", "DELETE", "/api/settings/flows/crm-account-to-erp", ""); w.Code != http.StatusNotFound {
		t.Fatalf("second delete: %d", w.Code)
	}
}

// The signed sample event reaches the flows through the function's own entry point, and
// its redelivery answers the same runs.
func TestFlowEventThroughLambdaEntryPoint(t *testing.T) {
	f := newFlows(t)
	var ev events.APIGatewayV2HTTPRequest
	loadEvent(t, blueprint.FuncFlowEvent+".json", &ev)
	h, err := f.deps.HTTPLambda(blueprint.FuncFlowEvent)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i, wantDup := range []bool{false, true} {
		resp, err := h(context.Background(), ev)
		if err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("delivery %d: %d %s %v", i, resp.StatusCode, resp.Body, err)
		}
		var out struct {
			RunIDs    []string `json:"runIds"`
			Duplicate bool     `json:"duplicate"`
		}
		if err := json.Unmarshal([]byte(resp.Body), &out); err != nil || len(out.RunIDs) != 1 || out.Duplicate != wantDup {
			t.Fatalf("delivery %d: %s", i, resp.Body)
		}
		if first == "" {
			first = out.RunIDs[0]
		} else if out.RunIDs[0] != first {
			t.Fatalf("redelivery answered run %s, first %s", out.RunIDs[0], first)
		}
	}
	// The sample has no Type, so the CRM→ERP flow's filter skips it.
	if r := f.run(t, first); r.Outcome != "skipped" {
		t.Fatalf("sample run %+v", r)
	}
}
