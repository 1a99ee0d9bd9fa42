// Command bench measures end-to-end ingest through the local stack (HTTP server, the same
// wiring as the Lambdas, dynalite and fauxqs) at a fixed concurrency, side by side in the
// same run with the raw floor: one conditional PutItem plus one SendMessage of the same size
// against the same emulators. The ratio of the two is the figure that travels between
// machines: what the service adds beyond its one write and one send.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

func main() {
	n := flag.Int("n", 3000, "requests per measurement")
	conc := flag.Int("c", 8, "concurrency")
	rounds := flag.Int("rounds", 2, "alternating rounds of raw and end-to-end")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	ingestOnly := flag.Bool("ingest-only", false, "measure the ingest against its floors only (no flows, poll or diagnosis)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*n, *conc, *rounds, *ingestOnly); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// ms is the shared load generator's.
var ms = loadgen.MS

// emulatorCPU reads dynalite's CPU time so far; run sets it.
var emulatorCPU func() (time.Duration, error)

// measure is the shared load generator's Measure, with the CPU time dynalite used over
// the measurement. dynalite runs every request on its one thread, so its CPU per request
// bounds a path's throughput whatever the service's own code costs: the ceilings printed
// beside the ratios.
func measure(name string, n, conc int, fn func(i int) error) loadgen.Result {
	before, err := emulatorCPU()
	r := loadgen.Measure(name, n, conc, fn)
	if after, err2 := emulatorCPU(); err == nil && err2 == nil {
		r.ServerCPU = after - before
	}
	return r
}

// ceiling is the most of floorRate a path could reach were the service's own code free:
// dynalite's one thread serves at most a second of CPU a second (a little more counting
// node's collector threads: busy up to 106 % measured), so the path's rate is at most one
// second over its dynalite CPU per request, here given as a share of the floor's measured
// rate.
func ceiling(floorRate float64, path time.Duration) float64 {
	if path <= 0 || floorRate <= 0 {
		return 0
	}
	return 1 / path.Seconds() / floorRate
}

func run(n, conc, rounds int, ingestOnly bool) error {
	ctx := context.Background()
	emu, err := emulators.Start(ctx, emulators.Options{})
	if err != nil {
		return err
	}
	defer emu.Stop()
	emulatorCPU = emu.DynamoDBCPU
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	os.Setenv("LOG_LEVEL", "error")
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	deps, prov, keys, err := setupStage(ctx, awsCfg, "bench")
	if err != nil {
		return err
	}
	key := keys[tenant.PurposeIngest]

	mux, err := deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + blueprint.IngestRoute.Path
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}

	db, sq := dynamodb.NewFromConfig(awsCfg), sqs.NewFromConfig(awsCfg)
	rawTable := deps.Config.Table(blueprint.Processed)
	queueURL := prov.Queues[blueprint.Diagnosis.Name].URL
	pad := strings.Repeat("x", 700) // about the size of a claim row and of the sample body
	payload := fmt.Sprintf(`{"shipcountry":"Deutschland","notes":"%s"}`, pad[:400])

	seq := 0
	raw := func(round int) loadgen.Result {
		return measure("raw PutItem(cond)+SendMessage", n, conc, func(i int) error {
			id := fmt.Sprintf("raw-%d-%d", round, i)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String(rawTable),
				Item: map[string]types.AttributeValue{
					"tenant_id": &types.AttributeValueMemberS{Value: "raw"},
					"id":        &types.AttributeValueMemberS{Value: id},
					"pad":       &types.AttributeValueMemberS{Value: pad},
				},
				ConditionExpression: aws.String("attribute_not_exists(id)"),
			})
			if err != nil {
				return err
			}
			_, err = sq.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL),
				MessageBody: aws.String(`{"tenantId":"raw","id":"` + id + `"}`)})
			return err
		})
	}
	e2e := func(round int) loadgen.Result {
		seq++
		return measure("end-to-end ingest over HTTP", n, conc, func(i int) error {
			errorID := fmt.Sprintf("E-%d-%d", round, i)
			body := syncErrorBody(errorID, fmt.Sprintf("SO-%d", i), payload)
			ans, err := loadgen.PostSigned(ctx, client, url, "bench", key, syncerror.HostMessageID("bench", errorID), []byte(body))
			if err != nil {
				return err
			}
			if ans.Status != http.StatusAccepted {
				return fmt.Errorf("status %d", ans.Status)
			}
			return nil
		})
	}

	// The deployed shape: API Gateway hands the function an event; no HTTP server or
	// client runs on the function's CPU.
	ingest, err := deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		return err
	}
	// Every measured post but those of newRows is an occurrence of a row the warm-up
	// created (the same record ids): an errorId's record and the fold's short count. A new
	// row is the errorId's record, the row's put and the diagnosis send.
	lambdaPosts := func(name, prefix string, recordID func(round, i int) string) func(round int) loadgen.Result {
		return func(round int) loadgen.Result {
			return measure(name, n, conc, func(i int) error {
				return postViaLambda(ctx, ingest, key, fmt.Sprintf("%s-%d-%d", prefix, round, i), recordID(round, i), payload)
			})
		}
	}
	viaLambda := lambdaPosts("ingest via the Lambda entry point", "L", func(_, i int) string { return fmt.Sprintf("SO-%d", i) })
	newRows := lambdaPosts("new rows via the Lambda entry point", "N", func(round, i int) string { return fmt.Sprintf("NEW-%d-%d", round, i) })

	// The unavoidable work with the real row: the claim row (with its two index entries)
	// put by the feature's own store, and the message sent by its queue, without the
	// handler (signature, parsing, the Lambda adapter).
	store := func(round int) loadgen.Result {
		return measure("claim row put + send (store only)", n, conc, func(i int) error {
			rec := syncerror.Record{TenantID: "bench", ErrorID: fmt.Sprintf("S-%d-%d", round, i), RecordType: "salesOrder",
				RecordID: fmt.Sprintf("SO-%d", i), ErrorCode: "INVALID_FIELD_VALUE", Message: "Invalid value for field shipcountry",
				OccurredAt: time.Date(2026, 11, 22, 9, 58, 41, 0, time.UTC), Payload: []byte(payload)}
			c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "msg_bench", time.Now())
			if _, err := deps.Claims.Claim(ctx, c); err != nil {
				return err
			}
			return deps.Queue.Queue.Send(ctx, syncerror.Message{TenantID: c.TenantID, ID: c.ID})
		})
	}

	// Warm every path (connections, JIT in the emulators) before measuring.
	_ = raw(-1)
	_ = e2e(-1)
	_ = viaLambda(-1)
	_ = newRows(-1)
	_ = store(-1)

	fmt.Printf("ingest at concurrency %d, %d requests per measurement, dynalite + fauxqs on loopback\n", conc, n)
	var rate [5]float64
	var p50, dyn [5]time.Duration
	var ingestCalls, newCalls map[string]int
	calls := stageCalls["bench"]
	for r := 0; r < rounds; r++ {
		rawR, storeR, lambdaR := raw(r), store(r), viaLambda(r)
		calls.take()
		e2eR := e2e(r)
		ingestCalls = calls.take()
		newR := newRows(r)
		newCalls = calls.take()
		for i, x := range []loadgen.Result{rawR, storeR, lambdaR, e2eR, newR} {
			fmt.Println(x)
			p50[i] += x.Quantile(0.5) / time.Duration(rounds)
			dyn[i] += x.ServerPerCall() / time.Duration(rounds)
			rate[i] += x.Rate()
		}
	}
	fmt.Printf("claim row put + send / raw: %.2f (p50 +%.2f ms): the row and its two index entries\n", rate[1]/rate[0], ms(p50[1]-p50[0]))
	fmt.Printf("via the Lambda entry point / raw: %.2f (p50 +%.2f ms); / claim row put + send: %.2f (p50 +%.2f ms)\n",
		rate[2]/rate[0], ms(p50[2]-p50[0]), rate[2]/rate[1], ms(p50[2]-p50[1]))
	fmt.Printf("over HTTP (local stack) / raw: %.2f (p50 +%.2f ms); / claim row put + send: %.2f\n",
		rate[3]/rate[0], ms(p50[3]-p50[0]), rate[3]/rate[1])
	fmt.Printf("new rows via the Lambda entry point / raw: %.2f (p50 +%.2f ms); / claim row put + send: %.2f (p50 +%.2f ms)\n",
		rate[4]/rate[0], ms(p50[4]-p50[0]), rate[4]/rate[1], ms(p50[4]-p50[1]))
	fmt.Printf("DynamoDB calls per ingest over HTTP (last round): %s; per new row: %s\n", perEvent(ingestCalls, n), perEvent(newCalls, n))
	fmt.Printf("at most, by dynalite's CPU per request at one core (the service's own code free), / claim row put + send: via the Lambda entry point %.2f, over HTTP %.2f, new rows %.2f\n",
		ceiling(rate[1]/float64(rounds), dyn[2]), ceiling(rate[1]/float64(rounds), dyn[3]), ceiling(rate[1]/float64(rounds), dyn[4]))
	if ingestOnly {
		return nil
	}

	// Flows: one change event is one run stored, one guarded write (manifest, loop ledger,
	// DLP, audit) and one read-compare-write of the CRM fake over HTTP, beside the raw floor.
	crm, crmURL, stopCRM, err := flowSetup(ctx, deps, n, rounds)
	if err != nil {
		return err
	}
	defer stopCRM()
	flowURL := "http://" + ln.Addr().String() + "/api/flows/events/hosterp"
	// The host ERP signs its change events with its own flow secret, not the ingest's.
	flowKey := keys[tenant.FlowPurpose("hosterp")]
	_ = flowEvents(ctx, flowURL, flowKey, n, conc, -1)
	var fr [3]float64
	var fp50, fsrv [3]time.Duration
	var flowCalls map[string]int
	for r := 0; r < rounds; r++ {
		rawR, direct := raw(100+r), directWrites(ctx, crmURL, n, conc, rounds+r)
		calls.take()
		events := flowEvents(ctx, flowURL, flowKey, n, conc, r)
		flowCalls = calls.take()
		for i, x := range []loadgen.Result{rawR, direct, events} {
			fmt.Println(x)
			fr[i] += x.Rate() / float64(rounds)
			fp50[i] += x.Quantile(0.5) / time.Duration(rounds)
			fsrv[i] += x.ServerPerCall() / time.Duration(rounds)
		}
	}
	fmt.Printf("flow events/s %.0f at c=%d; / raw ingest floor: %.2f (p50 +%.2f ms); / bare CRM PATCH: %.2f (p50 +%.2f ms: the run, the guard, ledger and audit, the read of read-compare-write)\n",
		fr[2], conc, fr[2]/fr[0], ms(fp50[2]-fp50[0]), fr[2]/fr[1], ms(fp50[2]-fp50[1]))
	fmt.Printf("CRM writes applied: %d for %d flow events and %d direct writes\n", len(crm.Writes()), n*(rounds+1), n*rounds)
	fmt.Printf("DynamoDB calls per flow event (last round): %s\n", perEvent(flowCalls, n))
	fmt.Printf("at most, by dynalite's CPU per request at one core (the service's own code free): flow event / raw ingest floor %.2f\n",
		ceiling(fr[0], fsrv[2]))
	if err := pollBench(ctx, deps, crm, min(n, 500)); err != nil {
		return err
	}
	return diagnoseBench(ctx, awsCfg, n/2)
}

// stageCalls are the DynamoDB call counters of the stages setupStage made, by stage.
var stageCalls = map[string]*dynamoCalls{}

// setupStage provisions a stage's tables and queues on the emulators, loads the wiring the
// Lambdas use for it and creates an enabled tenant "bench"; it returns the tenant's keys
// by purpose.
func setupStage(ctx context.Context, awsCfg aws.Config, stage string) (*compose.Stack, compose.Provisioned, map[tenant.Purpose][]byte, error) {
	os.Setenv("STAGE", stage)
	os.Setenv(platform.EnvConnectorsAllowLocal, "true") // the fakes are on loopback
	prov, err := compose.Provision(ctx, awsCfg, stage, sqsqueue.CreateOptions{})
	if err != nil {
		return nil, prov, nil, err
	}
	for k, v := range prov.Env() {
		os.Setenv(k, v)
	}
	deps, calls, err := loadCounted(ctx)
	if err != nil {
		return nil, prov, nil, err
	}
	stageCalls[stage] = calls
	admin := tenant.Admin{Store: deps.Tenants}
	secrets, err := admin.Create(ctx, "bench", nil)
	if err != nil {
		return nil, prov, nil, err
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, "bench", k, "true"); err != nil {
			return nil, prov, nil, err
		}
	}
	keys := map[tenant.Purpose][]byte{}
	for p, secret := range secrets {
		keys[p], _ = webhook.ParseSecret(secret)
	}
	return deps, prov, keys, nil
}

// diagnoseBench claims n sync errors, then lets two pollers (the local stand-in for the
// SQS event source) drain the diagnosis queue through the worker with the rules provider,
// and reports how fast claims become ready.
func diagnoseBench(ctx context.Context, awsCfg aws.Config, n int) error {
	deps, prov, keys, err := setupStage(ctx, awsCfg, "benchdiag")
	if err != nil {
		return err
	}
	key := keys[tenant.PurposeIngest]
	h := deps.Queue.Ingest()
	for i := 0; i < n; i++ {
		body := []byte(fmt.Sprintf(`{"tenantId":"bench","errorId":"D-%d","recordType":"salesOrder","recordId":"SO-%d","errorCode":"INVALID_FIELD_VALUE","message":"Invalid value for field shipcountry: Deutschland is not a valid ISO 3166 country code","occurredAt":"2026-11-22T09:58:41Z","payload":{"shipcountry":"Deutschland","email":"buyer%d@example.com","total":129.5}}`, i, i, i))
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, blueprint.IngestRoute.Path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(intake.HeaderTenantID, "bench")
		webhook.Sign(key, webhook.NewMessageID(), time.Now(), body).Set(req.Header)
		w := &discardWriter{header: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != http.StatusAccepted {
			return fmt.Errorf("claim %d: status %d", i, w.status)
		}
	}
	var done int64
	var batchTime int64
	worker := deps.Worker()
	handler := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		t0 := time.Now()
		resp, err := worker.HandleBatch(ctx, ev)
		atomic.AddInt64(&batchTime, int64(time.Since(t0)))
		atomic.AddInt64(&done, int64(len(ev.Records)-len(resp.BatchItemFailures)))
		return resp, err
	}
	q := prov.Queues[blueprint.Diagnosis.Name]
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	for i := 0; i < 2; i++ {
		p := &sqsqueue.Poller{Client: sqs.NewFromConfig(awsCfg), QueueURL: q.URL, QueueARN: q.ARN, Handler: handler, BatchSize: 10}
		go p.Run(pctx)
	}
	for atomic.LoadInt64(&done) < int64(n) {
		if time.Since(start) > 2*time.Minute {
			return fmt.Errorf("diagnosis bench: %d of %d done after 2 minutes", atomic.LoadInt64(&done), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	cancel()
	fmt.Printf("diagnosis through the local stack (2 pollers, batches of 10, rules provider, DLP + trace + cost + audit): %d claims in %.2fs = %.0f/s, %.2f ms of worker time per claim\n",
		n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), float64(atomic.LoadInt64(&batchTime))/float64(n)/1e6)
	return nil
}

type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(s int)           { d.status = s }

// postViaLambda posts one signed sync error to the ingest function's handler as API
// Gateway hands it over.
func postViaLambda(ctx context.Context, ingest func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error),
	key []byte, errorID, recordID, payload string) error {
	body := syncErrorBody(errorID, recordID, payload)
	h := http.Header{}
	webhook.Sign(key, syncerror.HostMessageID("bench", errorID), time.Now(), []byte(body)).Set(h)
	ev := events.APIGatewayV2HTTPRequest{RouteKey: blueprint.IngestRoute.Pattern(), RawPath: blueprint.IngestRoute.Path, Body: body,
		Headers: map[string]string{"content-type": "application/json", "x-tenant-id": "bench"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
			Method: http.MethodPost, Path: blueprint.IngestRoute.Path}}}
	for k := range h {
		ev.Headers[strings.ToLower(k)] = h.Get(k)
	}
	resp, err := ingest(ctx, ev)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("status %d: %s", resp.StatusCode, resp.Body)
	}
	return nil
}

// syncErrorBody is the bench's sync error errorID on recordID, with payload (JSON).
func syncErrorBody(errorID, recordID, payload string) string {
	return fmt.Sprintf(`{"tenantId":"bench","errorId":"%s","recordType":"salesOrder","recordId":"%s","errorCode":"INVALID_FIELD_VALUE","message":"Invalid value for field shipcountry","occurredAt":"2026-11-22T09:58:41Z","payload":%s}`,
		errorID, recordID, payload)
}
