package compose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	flowpkg "github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
)

// cycle is the whole service with three fakes (NetSuite as the host ERP, Salesforce as
// the CRM, Mailchimp as marketing) over real HTTP, on the DynamoDB emulator, and a flow
// cycle hosterp → crm → marketing → hosterp whose last leg swaps phone and e-mail. The
// entities (partner, Lead, list L1) are ones the ownership manifest leaves open, so only
// the loop checks decide.
type cycle struct {
	*env
	fakes map[connector.System]*fakesystem.Server
	api   http.Handler
	now   time.Time
	// rewrite, when set, is a system changing a record as it stores it (a normalisation),
	// applied before the system reports the record.
	rewrite func(s connector.System, entity string, fields map[string]any)
}

var cycleFlows = map[string]string{
	"erp-to-crm": `{"enabled": true, "source": {"system": "hosterp", "entity": "partner"}, "target": {"system": "crm", "entity": "Lead"},
	  "mapping": {"Phone": "phone", "Email": "email"}}`,
	"crm-to-marketing": `{"enabled": true, "trigger": "%s", "source": {"system": "crm", "entity": "Lead"}, "target": {"system": "marketing", "entity": "L1"},
	  "mapping": {"PHONE": "Phone", "EMAIL": "Email"}}`,
	"marketing-to-erp": `{"enabled": true, "source": {"system": "marketing", "entity": "L1"}, "target": {"system": "hosterp", "entity": "partner"},
	  "mapping": {"email": "PHONE", "phone": "EMAIL"}}`,
}

func newCycle(t *testing.T, crmTrigger flowpkg.Trigger) *cycle {
	t.Helper()
	c := newLoopRig(t)
	c.fakes[connector.SystemHostERP].Seed("partner", "C-1", map[string]any{"phone": "+49 40 1", "email": "old@example.com"})
	c.fakes[connector.SystemCRM].Seed("Lead", "C-1", map[string]any{"Phone": "+49 40 1", "Email": "old@example.com"})
	c.fakes[connector.SystemMarketing].Seed("L1", "C-1", map[string]any{"PHONE": "+49 40 1", "EMAIL": "old@example.com", "status": "subscribed"})
	for _, id := range []string{"erp-to-crm", "crm-to-marketing", "marketing-to-erp"} {
		c.putFlow(t, id, strings.Replace(cycleFlows[id], "%s", string(crmTrigger), 1))
	}
	return c
}

// newLoopRig is the service on the emulators with the three fakes and no flows.
func newLoopRig(t *testing.T) *cycle {
	t.Helper()
	t.Setenv("CONNECTOR_TIMEOUT", "300ms")
	c := &cycle{env: newEnv(t, sqsqueue.CreateOptions{}), fakes: map[connector.System]*fakesystem.Server{}, now: fixtureTime}
	c.deps.Now = func() time.Time { return c.now }
	ctx := context.Background()
	for _, s := range []connector.System{connector.SystemHostERP, connector.SystemCRM, connector.SystemMarketing} {
		fake := fakesystem.New(s)
		srv := httptest.NewServer(fake.Handler())
		t.Cleanup(srv.Close)
		if err := (tenant.Admin{Store: c.deps.Tenants}).SetConnector(ctx, "demo", string(s), srv.URL, ""); err != nil {
			t.Fatal(err)
		}
		c.fakes[s] = fake
	}
	c.deps.Tokens = identitytest.RoleTokens{}
	api, err := c.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	c.api = api
	return c
}

// putFlow saves a flow as an admin and returns the answer's body.
func (c *cycle) putFlow(t *testing.T, id, body string) string {
	t.Helper()
	w := serve(c.api, "admin@demo", "PUT", "/api/settings/flows/"+id, body)
	if w.Code != http.StatusCreated && w.Code != http.StatusOK {
		t.Fatalf("PUT flow %s: %d %s", id, w.Code, w.Body)
	}
	return w.Body.String()
}

// tick moves the clock on, as time passes between a write and its echo.
func (c *cycle) tick() { c.now = c.now.Add(time.Second) }

// push is the system reporting its record's current state as a change event, as a
// system that pushes every change does (the echo of a flow's write included).
func (c *cycle) push(t *testing.T, s connector.System, entity, eventID string) []flowpkg.Run {
	t.Helper()
	c.tick()
	rec, ok := c.fakes[s].Get(entity, "C-1")
	if !ok {
		t.Fatalf("%s has no %s C-1", s, entity)
	}
	if c.rewrite != nil {
		c.rewrite(s, entity, rec.Fields)
		c.fakes[s].Seed(entity, "C-1", rec.Fields)
	}
	ids, _, err := c.deps.Flows.Exec.Handle(context.Background(), "demo", s, flowpkg.Event{EventID: eventID, Entity: entity,
		RecordID: "C-1", ChangedAt: c.now, Fields: rec.Fields})
	if err != nil {
		t.Fatalf("event %s: %v", eventID, err)
	}
	return c.runs(t, ids)
}

func (c *cycle) runs(t *testing.T, ids []string) []flowpkg.Run {
	t.Helper()
	var out []flowpkg.Run
	for _, id := range ids {
		r, err := c.deps.Flows.Store.Run(context.Background(), "demo", id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// endpoints are where each system keeps the cycle's record.
var endpoints = map[connector.System]string{connector.SystemHostERP: "partner", connector.SystemCRM: "Lead", connector.SystemMarketing: "L1"}

// echoAll plays every system pushing each change a flow wrote, starting with first's
// record, until nothing more is written or the budget of events is spent, and returns
// the runs.
func (c *cycle) echoAll(t *testing.T, first flowpkg.Endpoint, budget int) []flowpkg.Run {
	t.Helper()
	var all []flowpkg.Run
	queue := []flowpkg.Endpoint{first}
	for i := 0; i < budget && len(queue) > 0; i++ {
		at := queue[0]
		queue = queue[1:]
		for _, r := range c.push(t, at.System, at.Entity, fmt.Sprintf("echo-%s-%d", at, i)) {
			all = append(all, r)
			if r.Outcome == flowpkg.OutcomeWritten {
				queue = append(queue, r.Target)
			}
		}
	}
	return all
}

func at(s connector.System) flowpkg.Endpoint {
	return flowpkg.Endpoint{System: s, Entity: endpoints[s]}
}

func (c *cycle) fields(s connector.System) map[string]any {
	rec, _ := c.fakes[s].Get(endpoints[s], "C-1")
	return rec.Fields
}

func (c *cycle) loopDetections(t *testing.T) string {
	t.Helper()
	saved := c.now
	c.now = c.now.Add(time.Second)
	defer func() { c.now = saved }()
	w := serve(c.api, "approver@demo", "GET", "/api/governance/loop-detections", "")
	if w.Code != http.StatusOK {
		t.Fatalf("loop detections: %d %s", w.Code, w.Body)
	}
	return w.Body.String()
}

const swappedChain = "hosterp/partner/C-1.phone → crm/Lead/C-1.Phone → marketing/L1/C-1.PHONE → hosterp/partner/C-1.email"

// Saving the flow that closes the cycle is allowed, and the answer names the cycle, its
// field chains and who owns each field (from the tenant's manifest with its overrides).
func TestSavingAFlowThatClosesACycleNamesIt(t *testing.T) {
	c := newLoopRig(t)
	overrides := []governance.Entry{{Entity: "lead", Field: "Phone", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins}}
	if err := c.deps.Manifests().(*governance.TenantManifests).SetOverrides(context.Background(), "demo", overrides); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"erp-to-crm", "crm-to-marketing"} {
		if body := c.putFlow(t, id, strings.Replace(cycleFlows[id], "%s", "event", 1)); !strings.Contains(body, `"cycles":[]`) {
			t.Fatalf("PUT %s named a cycle before one exists: %s", id, body)
		}
	}
	var saved struct {
		ID     string `json:"id"`
		Cycles []struct {
			Flows, Endpoints []string
			Summary          string
			Fields           [][]struct{ System, Entity, Field, Owner, Policy string }
		} `json:"cycles"`
	}
	w := serve(c.api, "admin@demo", "PUT", "/api/settings/flows/marketing-to-erp", cycleFlows["marketing-to-erp"])
	decode(t, w, &saved)
	if w.Code != http.StatusCreated || saved.ID != "marketing-to-erp" || len(saved.Cycles) != 1 {
		t.Fatalf("PUT: %d %s, want the flow saved and one cycle named", w.Code, w.Body)
	}
	cy := saved.Cycles[0]
	if strings.Join(cy.Flows, ",") != "marketing-to-erp,erp-to-crm,crm-to-marketing" ||
		strings.Join(cy.Endpoints, ",") != "marketing/L1,hosterp/partner,crm/Lead,marketing/L1" || len(cy.Fields) != 2 {
		t.Fatalf("cycle %+v", cy)
	}
	owned := false
	for _, f := range cy.Fields[1] {
		owned = owned || f.Entity == "Lead" && f.Field == "Phone" && f.Owner == "crm" && f.Policy == "source_wins"
	}
	if !owned {
		t.Fatalf("chain %+v does not name the CRM as owner of Lead.Phone", cy.Fields[1])
	}
	// The audit record of the change names the cycle too.
	c.tick()
	if w := serve(c.api, "approver@demo", "GET", "/api/audit?actionType=settings", ""); w.Code != http.StatusOK ||
		!strings.Contains(w.Body.String(), "marketing/L1 → hosterp/partner") {
		t.Fatalf("audit: %d %s", w.Code, w.Body)
	}
}

// A CRM record reported whole (as a poll reads it) carries the echo of the ERP's phone
// beside a change made in the CRM: the echo is taken out of the write and recorded, the
// change is written, within the loop window as after it.
func TestAChangeTravellingWithAnEchoIsWritten(t *testing.T) {
	f := newFlows(t)
	f.erp.Seed("customer", "C-1", map[string]any{"phone": "+49 40 7", "creditlimit": 5000})
	ids, _ := f.event(t, "hosterp", "ev-phone", "customer", map[string]any{"phone": "+49 40 7"})
	if r := f.onlyRun(t, ids); r.Outcome != "written" {
		t.Fatalf("ERP→CRM run %+v", r)
	}
	ids, _ = f.event(t, "crm", "ev-both", "Account", map[string]any{"Type": "Customer", "Phone": "+49 40 7", "Email": "new@example.com"})
	r, err := f.deps.Flows.Store.Run(context.Background(), "demo", ids[0])
	if err != nil || r.Outcome != flowpkg.OutcomeWritten || strings.Join(r.Looped, ",") != "phone" {
		t.Fatalf("run %+v err %v, want email written and phone looped", r, err)
	}
	rec, _ := f.erp.Get("customer", "C-1")
	if rec.Fields["email"] != "new@example.com" || rec.Fields["phone"] != "+49 40 7" {
		t.Fatalf("ERP customer %v", rec.Fields)
	}
}

// Every system pushes its changes: the host ERP's change reaches the CRM and marketing,
// and marketing's echo, which would bring the values back to the host ERP swapped, is
// broken with a loop detection naming the hop chain. Nothing oscillates.
func TestThreeSystemCycleIsBrokenWhenEchoesArePushed(t *testing.T) {
	c := newCycle(t, flowpkg.TriggerEvent)
	erp := c.fakes[connector.SystemHostERP]
	erp.Seed("partner", "C-1", map[string]any{"phone": "+49 40 7", "email": "new@example.com"})
	runs := c.echoAll(t, at(connector.SystemHostERP), 30)

	var written, broken int
	for _, r := range runs {
		switch r.Outcome {
		case flowpkg.OutcomeWritten:
			written++
		case flowpkg.OutcomeLoopBroken:
			broken++
			if r.FlowID != "marketing-to-erp" || !strings.Contains(r.Decision, swappedChain) {
				t.Errorf("broken run %+v, want marketing-to-erp naming the chain", r)
			}
		default:
			t.Errorf("run %+v", r)
		}
	}
	if written != 2 || broken != 1 || len(runs) != 3 {
		t.Fatalf("%d runs: %d written, %d broken; want erp→crm and crm→marketing written, marketing→erp broken", len(runs), written, broken)
	}
	if got := c.fields(connector.SystemHostERP); got["phone"] != "+49 40 7" || got["email"] != "new@example.com" {
		t.Fatalf("host ERP partner %v: the values came back swapped", got)
	}
	if got := c.fields(connector.SystemMarketing); got["PHONE"] != "+49 40 7" || got["EMAIL"] != "new@example.com" {
		t.Fatalf("marketing member %v", got)
	}
	if erp.WriteCount() != 0 {
		t.Fatalf("%d writes reached the host ERP", erp.WriteCount())
	}
	if body := c.loopDetections(t); !strings.Contains(body, swappedChain) || !strings.Contains(body, `"caller":"marketing"`) {
		t.Fatalf("loop detections %s", body)
	}

	// A real change in marketing afterwards is not an echo: it reaches the host ERP (in
	// the swapped field the flow maps), the chain it starts ends where it started, and
	// then every system reporting its record again changes nothing anywhere.
	c.fakes[connector.SystemMarketing].Seed("L1", "C-1", map[string]any{"PHONE": "+49 40 9", "EMAIL": "new@example.com", "status": "subscribed"})
	if runs := c.echoAll(t, at(connector.SystemMarketing), 30); len(runs) >= 30 {
		t.Fatalf("marketing's change is still going round after %d runs", len(runs))
	}
	if got := c.fields(connector.SystemHostERP); got["email"] != "+49 40 9" || erp.WriteCount() != 1 {
		t.Fatalf("host ERP partner %v after %d writes; want marketing's change written once", got, erp.WriteCount())
	}
	c.assertStable(t)
}

// assertStable reports every system's record once more and fails if anything is written.
func (c *cycle) assertStable(t *testing.T) {
	t.Helper()
	type state struct {
		fields string
		writes int
	}
	snapshot := func() map[connector.System]state {
		out := map[connector.System]state{}
		for s, f := range c.fakes {
			b, _ := json.Marshal(c.fields(s))
			out[s] = state{string(b), f.WriteCount()}
		}
		return out
	}
	before := snapshot()
	for s := range endpoints {
		c.echoAll(t, at(s), 10)
	}
	if after := snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatalf("the records moved when nothing changed:\nbefore %v\nafter  %v", before, after)
	}
}

// The CRM cannot push: its echo arrives through the poll, as a whole record read by
// SystemModstamp. The values still carry their hops, and the cycle is broken.
func TestThreeSystemCycleIsBrokenWhenAnEchoIsPolled(t *testing.T) {
	c := newCycle(t, flowpkg.TriggerPoll)
	// The poll starts from when its flow was put; the fakes' records change after it.
	c.fakes[connector.SystemHostERP].Seed("partner", "C-1", map[string]any{"phone": "+49 40 7", "email": "new@example.com"})
	runs := c.push(t, connector.SystemHostERP, "partner", "erp-1")
	if len(runs) != 1 || runs[0].Outcome != flowpkg.OutcomeWritten {
		t.Fatalf("erp→crm runs %+v", runs)
	}
	c.tick()
	if rep, err := c.deps.Flows.Poller.Poll(context.Background(), "demo"); err != nil || rep.Runs < 1 {
		t.Fatalf("poll %+v err %v", rep, err)
	}
	if got := c.fields(connector.SystemMarketing); got["PHONE"] != "+49 40 7" {
		t.Fatalf("marketing member %v after the poll", got)
	}
	runs = c.echoAll(t, at(connector.SystemMarketing), 30)
	if len(runs) != 1 || runs[0].Outcome != flowpkg.OutcomeLoopBroken || !strings.Contains(runs[0].Decision, swappedChain) {
		t.Fatalf("marketing's echo %+v, want it broken naming the chain", runs)
	}
	// Polled again, the CRM record has not changed: nothing more is written anywhere.
	c.tick()
	before := c.fakes[connector.SystemMarketing].WriteCount() + c.fakes[connector.SystemHostERP].WriteCount()
	if _, err := c.deps.Flows.Poller.Poll(context.Background(), "demo"); err != nil {
		t.Fatal(err)
	}
	if after := c.fakes[connector.SystemMarketing].WriteCount() + c.fakes[connector.SystemHostERP].WriteCount(); after != before {
		t.Fatalf("%d writes after a poll that found nothing new", after-before)
	}
	if got := c.fields(connector.SystemHostERP); got["phone"] != "+49 40 7" || got["email"] != "new@example.com" {
		t.Fatalf("host ERP partner %v", got)
	}
}

func decode(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("%d %s: %v", w.Code, w.Body, err)
	}
}
