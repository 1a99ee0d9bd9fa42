package flow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// MaxDynamoCallsPerFlowEvent holds the DynamoDB calls of one flow event on the flow-event
// function's warm path, so a change that adds one fails here (issue 37 §6). Measured on
// 2026-11-29: 15, then 11 (the flows and the manifest cached per process, the ledger and
// trail entries one BatchWriteItem, an event of one run stores no event item), then 9 (the
// write's audit records ride in that BatchWriteItem), then 8 (the reciprocal loop check
// reads the trail the executor read: governance/trail_read.go), then 7 (2026-11-30: the
// CRM's rate-budget hold is read once a second per process, ratebudget.holdRecheck), then
// 6 (the event posted under its own derived webhook-id, flow.EventMessageID, as
// docs/flow-sources.md tells relays to: it needs no claim), then 5 (2026-11-30: an event of
// one run keeps its run at the event's own key, flow.EventRunID, so the run's conditional
// put is the event's dedupe and nothing is read first), issue 37 §3's goal. Each of the 5
// keeps a guarantee, and dynalite has no TransactWriteItems to join writes (LOCAL-AWS.md):
//
//   - (only under any other webhook-id, a 6th) PutItem flows, the webhook-id's claim: a
//     webhook-id is used by one message only, so the item must be keyed by it;
//   - PutItem flows, the run at the event's key, conditional: one delivery of the event
//     takes it whichever flows match a redelivery, and a run dying mid-write is on record
//     for the redrive (an event of no run puts a marker of its run ids there instead, and
//     one of several the marker after reading the key and putting the runs);
//   - Query governance, the source record's trail: an echo of a flow's write is told from
//     a change (hop chains), and the writes that made this one a return leg (the
//     reciprocal loop check) are found among its entries;
//   - UpdateItem governance, the flapping counter of the target record, atomic;
//   - (per second, not per event) UpdateItem governance, the vendor account's rate-budget
//     hold, shared by every function;
//   - BatchWriteItem governance and audit_logs: the ledger and trail entries, the
//     connector.write and dlp.scan records;
//   - PutItem flows, the run's outcome, conditional on the attempt still owning the run.
const MaxDynamoCallsPerFlowEvent = 5

// callCounter counts the DynamoDB calls the service's clients make, by operation and
// table, with an SDK middleware in the Initialize step as make cost's meter does
// (infra/cost/meter.go), so the service's requests are unchanged.
type callCounter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *callCounter) install(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, emutest.Observe(func(in, _ any) {
		if service, op := emutest.OpName(in); service == "dynamodb" {
			c.mu.Lock()
			c.calls[op+" "+tableOf(in)]++
			c.mu.Unlock()
		}
	}))
}

// tableOf names the tables a call touches, for the failure message.
func tableOf(p any) string {
	switch p := p.(type) {
	case *dynamodb.GetItemInput:
		return aws.ToString(p.TableName)
	case *dynamodb.PutItemInput:
		return aws.ToString(p.TableName)
	case *dynamodb.UpdateItemInput:
		return aws.ToString(p.TableName)
	case *dynamodb.DeleteItemInput:
		return aws.ToString(p.TableName)
	case *dynamodb.QueryInput:
		return aws.ToString(p.TableName) + "/" + aws.ToString(p.IndexName)
	case *dynamodb.BatchGetItemInput:
		return strings.Join(slices.Sorted(maps.Keys(p.RequestItems)), "+")
	case *dynamodb.BatchWriteItemInput:
		return strings.Join(slices.Sorted(maps.Keys(p.RequestItems)), "+")
	case *dynamodb.TransactWriteItemsInput:
		var tables []string
		for _, it := range p.TransactItems {
			switch {
			case it.Put != nil:
				tables = append(tables, aws.ToString(it.Put.TableName))
			case it.Update != nil:
				tables = append(tables, aws.ToString(it.Update.TableName))
			case it.ConditionCheck != nil:
				tables = append(tables, aws.ToString(it.ConditionCheck.TableName))
			case it.Delete != nil:
				tables = append(tables, aws.ToString(it.Delete.TableName))
			}
		}
		return strings.Join(tables, "+")
	}
	return ""
}

// take returns the counts so far, their total, and starts again.
func (c *callCounter) take() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out, n := c.calls, 0
	for _, v := range out {
		n += v
	}
	c.calls = map[string]int{}
	return out, n
}

// budgetStack is the flow-event function's wiring on a private stage, its DynamoDB calls
// counted, with a tenant whose host ERP customer phone flows to a fake Salesforce's
// Account.
type budgetStack struct {
	fn    platform.HTTPHandler
	calls *callCounter
	crm   *fakesystem.Server
	key   []byte
	// vendor are the requests the fake CRM received ("GET /services/…").
	mu     sync.Mutex
	vendor []string
}

func newBudgetStack(t *testing.T) *budgetStack {
	t.Helper()
	ctx := context.Background()
	stage := emutest.Stage(t)
	prov, err := compose.Provision(ctx, emutest.Config(t), stage, sqsqueue.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STAGE", stage)
	t.Setenv("LOG_LEVEL", "error")
	t.Setenv(platform.EnvConnectorsAllowLocal, "true")
	for k, v := range prov.Env() {
		t.Setenv(k, v)
	}
	cfg, err := platform.ConfigFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	awsCfg, err := platform.AWSConfigFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	s := &budgetStack{calls: &callCounter{calls: map[string]int{}}, crm: fakesystem.New(connector.SystemCRM)}
	s.calls.install(&awsCfg)
	base := platform.New(cfg, awsCfg, os.Getenv)
	// The service's clock stands still, so what a process caches for a while (the CRM's
	// hold for ratebudget's holdRecheck) is cached for every event however slowly a loaded
	// machine runs them.
	started := time.Now()
	base.Now = func() time.Time { return started }
	deps, err := compose.New(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.vendor = append(s.vendor, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		s.crm.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	admin := tenant.Admin{Store: deps.Tenants, Keeper: deps.Keeper}
	secrets, err := admin.Create(ctx, "budget", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.key, err = webhook.ParseSecret(secrets[tenant.FlowPurpose(string(connector.SystemHostERP))]); err != nil {
		t.Fatal(err)
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, "budget", k, "true"); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.SetConnector(ctx, "budget", string(connector.SystemCRM), srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	overrides := []governance.Entry{{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}}
	if err := deps.Manifests().(*governance.TenantManifests).SetOverrides(ctx, "budget", overrides); err != nil {
		t.Fatal(err)
	}
	f := flow.Flow{ID: "erp-customer-to-crm", Enabled: true,
		Source:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Mapping: map[string]string{"Phone": "phone"}}
	if err := flow.NewDynamoStore(deps.DB, deps.Config.Table(blueprint.Flows)).PutFlow(ctx, "budget", f); err != nil {
		t.Fatal(err)
	}
	if s.fn, err = deps.HTTPLambda(blueprint.FuncFlowEvent); err != nil {
		t.Fatal(err)
	}
	return s
}

// post sends customer i's phone change as the host ERP's signed event and wants one run
// written.
func (s *budgetStack) post(t *testing.T, i int) {
	t.Helper()
	s.crm.Seed("Account", fmt.Sprintf("C-%d", i), map[string]any{"Phone": "+49 40 0", "Name": "Budget"})
	body, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("ev-%d", i), "entity": "customer",
		"recordId": fmt.Sprintf("C-%d", i), "changedAt": time.Now().UTC().Format(time.RFC3339),
		"fields": map[string]any{"phone": fmt.Sprintf("+49 40 %d", 1000+i)}})
	h := http.Header{}
	// The webhook-id a relay following docs/flow-sources.md sends.
	webhook.Sign(s.key, flow.EventMessageID(connector.SystemHostERP, fmt.Sprintf("ev-%d", i)), time.Now(), body).Set(h)
	ev := lambdaevents.APIGatewayV2HTTPRequest{RawPath: "/api/flows/events/hosterp", Body: string(body),
		Headers: map[string]string{"content-type": "application/json", "x-tenant-id": "budget"},
		RequestContext: lambdaevents.APIGatewayV2HTTPRequestContext{HTTP: lambdaevents.APIGatewayV2HTTPRequestContextHTTPDescription{
			Method: http.MethodPost, Path: "/api/flows/events/hosterp"}}}
	for k := range h {
		ev.Headers[strings.ToLower(k)] = h.Get(k)
	}
	resp, err := s.fn(context.Background(), ev)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("event %d: %v %d %s", i, err, resp.StatusCode, resp.Body)
	}
	var out struct{ RunIDs []string }
	if json.Unmarshal([]byte(resp.Body), &out) != nil || len(out.RunIDs) != 1 {
		t.Fatalf("event %d started %s", i, resp.Body)
	}
}

// takeVendor returns the CRM's requests so far and starts again.
func (s *budgetStack) takeVendor() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.vendor
	s.vendor = nil
	return out
}

// TestFlowEventStaysWithinItsDynamoDBBudget holds a warm flow event (one run, one guarded
// write through) to MaxDynamoCallsPerFlowEvent DynamoDB calls, and to no vendor call beyond
// the write's own: no metadata (describe) read of the vendor per event.
func TestFlowEventStaysWithinItsDynamoDBBudget(t *testing.T) {
	s := newBudgetStack(t)
	s.post(t, 0) // the first event fills the per-process caches (tenant, manifest, connector)
	s.calls.take()
	s.takeVendor()
	const events = 3
	for i := 1; i <= events; i++ {
		s.post(t, i)
		calls, n := s.calls.take()
		switch {
		case n == 0:
			t.Fatalf("event %d: no DynamoDB call counted: the counter sees nothing", i)
		case n > MaxDynamoCallsPerFlowEvent:
			t.Errorf("event %d made %d DynamoDB calls, budget %d: %v", i, n, MaxDynamoCallsPerFlowEvent, calls)
		default:
			t.Logf("event %d: %d DynamoDB calls: %v", i, n, calls)
		}
		account := fmt.Sprintf("/services/data/v%s/sobjects/Account/C-%d", connector.SalesforceAPIVersion, i)
		// The read of read-compare-write, the PATCH, and the read back of the record the
		// connector answers (Salesforce's PATCH answers 204 without a body): no describe.
		if got, want := s.takeVendor(), []string{"GET " + account, "PATCH " + account, "GET " + account}; !slices.Equal(got, want) {
			t.Errorf("event %d: the CRM was asked %q, want only %q", i, got, want)
		}
	}
	if got := len(s.crm.Writes()); got != events+1 {
		t.Fatalf("the fake CRM applied %d writes for %d events", got, events+1)
	}
}
