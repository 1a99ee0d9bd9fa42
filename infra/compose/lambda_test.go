package compose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// The documented test-only secret events/ingest.json is signed with, and its time.
const (
	fixtureSecret = "whsec_ZXZlbnRzLWZpeHR1cmUtc2VjcmV0LWRvLW5vdC11c2U="
	fixtureErrID  = "ERR-2026-000417"
)

var fixtureTime = time.Unix(1795341600, 0).UTC()

type env struct {
	deps *compose.Stack
	prov compose.Provisioned
	sqs  *sqs.Client
}

// newEnv provisions a private stage on the emulators and loads the wiring the Lambdas use,
// with the demo tenant on and the clock at fixture time.
func newEnv(t testing.TB, opt sqsqueue.CreateOptions) *env {
	t.Helper()
	ctx := context.Background()
	cfg := emutest.Config(t)
	stage := emutest.Stage(t)
	prov, err := compose.Provision(ctx, cfg, stage, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STAGE", stage)
	t.Setenv("LOG_LEVEL", "warn")
	// The fakes are on loopback; a test that wants a deployed stage's checks sets "false".
	if os.Getenv(platform.EnvConnectorsAllowLocal) == "" {
		t.Setenv(platform.EnvConnectorsAllowLocal, "true")
	}
	for k, v := range prov.Env() {
		t.Setenv(k, v)
	}
	deps, err := compose.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deps.Now = func() time.Time { return fixtureTime }
	checkAPI(t, deps)
	admin := tenant.Admin{Store: deps.Tenants}
	// The sample events are signed with one fixture secret, so every purpose gets it here;
	// TestSecretsArePerPurpose proves that the purposes are kept apart.
	fixture := map[tenant.Purpose]string{}
	for _, p := range tenant.Purposes {
		fixture[p] = fixtureSecret
	}
	if _, err := admin.Create(ctx, "demo", fixture); err != nil {
		t.Fatal(err)
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, "demo", k, "true"); err != nil {
			t.Fatal(err)
		}
	}
	return &env{deps: deps, prov: prov, sqs: sqs.NewFromConfig(cfg)}
}

// fixtureRowID is the row events/ingest.json's sync error opens: the first of its
// signature.
func fixtureRowID(t *testing.T) string {
	t.Helper()
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	return rowIDOf(t, []byte(in.Body))
}

// rowIDOf is the row an ingest body opens.
func rowIDOf(t *testing.T, body []byte) string {
	t.Helper()
	r, err := syncerror.ParseRecord(body, "demo")
	if err != nil {
		t.Fatal(err)
	}
	return syncerror.RowID(r)
}

func loadEvent(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func (e *env) queueURL(name string) string { return e.prov.Queues[name].URL }

// drain receives every visible message of a queue (and deletes them).
func (e *env) drain(t *testing.T, name string) []string {
	t.Helper()
	var bodies []string
	for {
		out, err := e.sqs.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(e.queueURL(name)), MaxNumberOfMessages: 10, WaitTimeSeconds: 0,
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			return bodies
		}
		for _, m := range out.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
			if _, err := e.sqs.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(e.queueURL(name)), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func ingestLambda(t *testing.T, e *env) platform.HTTPHandler {
	t.Helper()
	h, err := e.deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestIngestEventThroughLambdaEntryPoint(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var ev events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &ev)
	h := ingestLambda(t, e)
	wantID := fixtureRowID(t)

	for i, wantDup := range []bool{false, true} {
		resp, err := h(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("delivery %d: status %d %s", i, resp.StatusCode, resp.Body)
		}
		var got intake.IngestResponse
		if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
			t.Fatal(err)
		}
		if got != (intake.IngestResponse{ID: wantID, Status: syncerror.StatusPending, Duplicate: wantDup}) {
			t.Fatalf("delivery %d: %+v", i, got)
		}
		if resp.Headers["Content-Type"] != "application/json" || resp.Headers["X-Correlation-Id"] == "" {
			t.Fatalf("headers %v", resp.Headers)
		}
	}
	row, err := e.deps.Claims.Get(context.Background(), "demo", wantID)
	if err != nil {
		t.Fatal(err)
	}
	if row.Record.RecordID != "SO-10042" || row.Diagnosis != syncerror.DiagnosisQueued || row.WebhookID != "msg_2kEvFixtureIngest0001" {
		t.Fatalf("row %+v", row)
	}
	msgs := e.drain(t, blueprint.Diagnosis.Name)
	if len(msgs) != 1 || msgs[0] != fmt.Sprintf(`{"tenantId":"demo","id":"%s"}`, wantID) {
		t.Fatalf("messages %v, want exactly one for %s", msgs, wantID)
	}

	// The same event with one byte of the body changed fails, and stores nothing new.
	ev.Body = strings.Replace(ev.Body, "SO-10042", "SO-10043", 1)
	resp, _ := h(context.Background(), ev)
	if resp.StatusCode != http.StatusUnauthorized || resp.Headers["Content-Type"] != "application/problem+json" {
		t.Fatalf("tampered: %d %v %s", resp.StatusCode, resp.Headers, resp.Body)
	}
	if msgs := e.drain(t, blueprint.Diagnosis.Name); len(msgs) != 0 {
		t.Fatalf("tampered request enqueued %v", msgs)
	}
}

func TestUnknownRouteIsProblemJSON(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var ev events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &ev)
	ev.RawPath, ev.RequestContext.HTTP.Path = "/api/nope", "/api/nope"
	resp, err := ingestLambda(t, e)(context.Background(), ev)
	if err != nil || resp.StatusCode != http.StatusNotFound || resp.Headers["Content-Type"] != "application/problem+json" {
		t.Fatalf("resp %+v err=%v", resp, err)
	}
}

func TestDiagnoseEventThroughLambdaEntryPoint(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	if resp, _ := ingestLambda(t, e)(context.Background(), in); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ingest: %d %s", resp.StatusCode, resp.Body)
	}
	id := fixtureRowID(t)
	var ev events.SQSEvent
	loadEvent(t, "diagnose.json", &ev)
	ev.Records[0].Body = strings.Replace(ev.Records[0].Body, "se_CLAIMID", id, 1)

	resp, err := e.deps.Worker().HandleBatch(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != ev.Records[1].MessageId {
		t.Fatalf("failures %+v, want only the malformed message", resp.BatchItemFailures)
	}
	row, err := e.deps.Claims.Get(context.Background(), "demo", id)
	if err != nil || row.Diagnosis != syncerror.DiagnosisReady || row.DiagnosisAttempts != 1 || row.Proposal == nil {
		t.Fatalf("row %+v err=%v", row, err)
	}
	p := row.Proposal
	if p.Class != "value" || len(p.Fix) != 1 || p.Fix[0].Path != "shipcountry" || p.Fix[0].Before != "Deutschland" || p.Fix[0].After != "DE" ||
		p.Confidence <= 0.5 || p.InferenceID != syncerror.InferenceID(id, 1) || p.Provider != "rules" {
		t.Fatalf("proposal %+v", p)
	}
	// The governed client left its trace, cost records and audit records, for the tenant.
	traces, err := e.deps.AIRecords.Traces(context.Background(), "demo", id)
	if err != nil || len(traces) != 1 || traces[0].Identity.TenantID != "demo" || traces[0].Identity.Actor != "webhook:msg_2kEvFixtureIngest0001" {
		t.Fatalf("traces %+v err=%v", traces, err)
	}
	costs, err := e.deps.AIRecords.Costs(context.Background(), "demo", id)
	if err != nil || len(costs) == 0 {
		t.Fatalf("costs %+v err=%v", costs, err)
	}
	page, err := e.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo", ActionType: audit.TypeAI,
		From: fixtureTime.Add(-time.Hour), To: fixtureTime.Add(time.Hour), Limit: 10})
	if err != nil || len(page.Records) != 1 || page.Records[0].ActionKey != "ai.inference" || page.Records[0].Result != audit.ResultSuccess {
		t.Fatalf("audit %+v err=%v", page.Records, err)
	}
}

func TestQueueFailureAfterClaimIsRepairedByScheduledReconcile(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	goodQueue := e.queueURL(blueprint.Diagnosis.Name)
	// Ingest with a queue that does not exist: SendMessage fails after the claim.
	t.Setenv(blueprint.Diagnosis.EnvVar, goodQueue+"-missing")
	broken, err := compose.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	broken.Now = e.deps.Now
	h, err := broken.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		t.Fatal(err)
	}
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	if resp, _ := h(context.Background(), in); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ingest with a broken queue: %d %s", resp.StatusCode, resp.Body)
	}
	id := fixtureRowID(t)
	if row, err := e.deps.Claims.Get(context.Background(), "demo", id); err != nil || row.Diagnosis != syncerror.DiagnosisQueued {
		t.Fatalf("row %+v err=%v, want queued", row, err)
	}
	if msgs := e.drain(t, blueprint.Diagnosis.Name); len(msgs) != 0 {
		t.Fatalf("unexpected messages %v", msgs)
	}

	var sched events.EventBridgeEvent
	loadEvent(t, "reconcile.json", &sched)
	e.deps.Now = func() time.Time { return fixtureTime.Add(e.deps.Queue.StuckAfter + time.Minute) }
	rep, err := e.deps.ReconcileLambda(context.Background(), sched)
	if err != nil || rep.Requeued != 1 {
		t.Fatalf("reconcile %+v err=%v", rep, err)
	}
	if msgs := e.drain(t, blueprint.Diagnosis.Name); len(msgs) != 1 || !strings.Contains(msgs[0], id) {
		t.Fatalf("messages after reconcile %v", msgs)
	}
	// Running the schedule again at once enqueues nothing more.
	if rep, _ := e.deps.ReconcileLambda(context.Background(), sched); rep.Requeued != 0 {
		t.Fatalf("second reconcile %+v", rep)
	}
}

func TestConcurrentDeliveriesOneRowOneMessage(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var ev events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &ev)
	h := ingestLambda(t, e)
	type result struct {
		status int
		dup    bool
	}
	results := make(chan result, 50)
	for i := 0; i < 50; i++ {
		go func() {
			resp, err := h(context.Background(), ev)
			if err != nil {
				t.Error(err)
			}
			var got intake.IngestResponse
			_ = json.Unmarshal([]byte(resp.Body), &got)
			results <- result{resp.StatusCode, got.Duplicate}
		}()
	}
	fresh := 0
	for i := 0; i < 50; i++ {
		r := <-results
		if r.status != http.StatusAccepted {
			t.Fatalf("status %d", r.status)
		}
		if !r.dup {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d non-duplicate answers, want 1", fresh)
	}
	if msgs := e.drain(t, blueprint.Diagnosis.Name); len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
}

func TestPollerPartialBatchFailureAndDLQRedrive(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{VisibilityTimeoutSeconds: 1})
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	if resp, _ := ingestLambda(t, e)(context.Background(), in); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ingest: %d %s", resp.StatusCode, resp.Body)
	}
	q := e.prov.Queues[blueprint.Diagnosis.Name]
	if _, err := e.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("poison")}); err != nil {
		t.Fatal(err)
	}
	p := &sqsqueue.Poller{Client: e.sqs, QueueURL: q.URL, QueueARN: q.ARN, Handler: e.deps.Worker().HandleBatch, WaitTime: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := p.PollOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := approxMessages(t, e, blueprint.DiagnosisDLQ.Name); n == 1 {
			break
		}
	}
	dlq := e.drain(t, blueprint.DiagnosisDLQ.Name)
	if len(dlq) != 1 || dlq[0] != "poison" {
		t.Fatalf("DLQ holds %v, want the poison message only", dlq)
	}
	if main := e.drain(t, blueprint.Diagnosis.Name); len(main) != 0 {
		t.Fatalf("main queue still holds %v: the good message should have been deleted after success", main)
	}
	row, err := e.deps.Claims.Get(context.Background(), "demo", fixtureRowID(t))
	if err != nil || row.Diagnosis != syncerror.DiagnosisReady || row.DiagnosisAttempts != 1 {
		t.Fatalf("row %+v err=%v: the good message should have been handled exactly once", row, err)
	}
}

func approxMessages(t *testing.T, e *env, name string) int {
	t.Helper()
	out, err := e.sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(e.queueURL(name)),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	return n
}

// The correlation id of the webhook request travels on the SQS message into the worker:
// the diagnosis's audit records carry the id the host ERP sent.
func TestCorrelationFollowsTheSyncErrorIntoTheWorker(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	in.Headers["x-correlation-id"] = "corr-follow-me-1"
	resp, _ := ingestLambda(t, e)(context.Background(), in)
	if resp.StatusCode != http.StatusAccepted || resp.Headers["X-Correlation-Id"] != "corr-follow-me-1" {
		t.Fatalf("ingest: %d %v %s", resp.StatusCode, resp.Headers, resp.Body)
	}
	q := e.prov.Queues[blueprint.Diagnosis.Name]
	p := &sqsqueue.Poller{Client: e.sqs, QueueURL: q.URL, QueueARN: q.ARN, Handler: e.deps.Worker().HandleBatch, WaitTime: time.Second}
	if n, err := p.PollOnce(context.Background()); err != nil || n != 1 {
		t.Fatalf("poll: %d %v", n, err)
	}
	page, err := e.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo", ActionType: audit.TypeAI,
		From: fixtureTime.Add(-time.Hour), To: fixtureTime.Add(time.Hour), Limit: 10})
	if err != nil || len(page.Records) == 0 {
		t.Fatalf("ai audit records %+v err %v", page.Records, err)
	}
	for _, r := range page.Records {
		if r.CorrelationID != "corr-follow-me-1" {
			t.Errorf("%s carries correlation %q", r.ActionKey, r.CorrelationID)
		}
	}
}

// Without a caller's X-Correlation-Id the correlation starts at API Gateway's request id,
// which the answer carries back.
func TestCorrelationStartsAtTheGatewayRequestID(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	delete(in.Headers, "x-correlation-id")
	in.RequestContext.RequestID = "JVxR2hNvoAMEMjQ="
	resp, _ := ingestLambda(t, e)(context.Background(), in)
	if resp.StatusCode != http.StatusAccepted || resp.Headers["X-Correlation-Id"] != "JVxR2hNvoAMEMjQ=" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Headers)
	}
}
