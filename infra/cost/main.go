// Command cost prices the service on AWS from counted calls (make cost, issue 29 §6): it
// drives each path through the Lambda entry points the functions use, wired as in AWS,
// against dynalite and fauxqs, with an SDK middleware counting every AWS call and the
// DynamoDB request units each is billed (table and each index apart), and prints the bill
// per million sync errors, per million flow events and per tenant-day of the scheduled
// backstops, at the dated list prices in prices.go, largest lines first.
//
// What is counted and what is modelled:
//
//   - counted: API requests, invocations, every DynamoDB call and its request units, SQS
//     requests (on the wire: wireCalls), KMS Decrypts (the key keeper's unwraps, remembered per warm function),
//     EventBridge entries, and the bytes the functions log (their JSON lines and EMF lines);
//
//   - measured: per invocation, wall time on the emulators and this process's CPU time
//     (getrusage, invocations made one at a time);
//
//   - modelled: the billed duration on Lambda (CPU time stretched by the CPU share of the
//     function's memory, plus -call-ms per AWS call; see Invocations.BilledMS), the event
//     source mapping's SQS receives and deletes (one each per batch of 10), the Lambda
//     runtime's START/END/REPORT lines and the API's access log line per request.
//
//     go run ./infra/cost [-n 200] [-call-ms 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

func main() {
	n := flag.Int("n", 200, "sync errors and flow events to drive")
	callMS := flag.Float64("call-ms", 5, "assumed latency of one AWS call inside the region, in ms")
	flag.Parse()
	if err := costs(context.Background(), *n, *callMS, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}

const (
	costTenant = "cost"
	costStage  = "cost"
	// lambdaPlatformLogBytes are the runtime's START, END and REPORT lines of one invocation
	// (about 100, 60 and 200 bytes with the request id, version and figures).
	lambdaPlatformLogBytes = 360
	// accessLogBytes is one access log line of the API (infra/stack's accessLogFormat with a
	// request id, an IPv4 address, a time and a route filled in).
	accessLogBytes = 290
)

// costFlow carries the host ERP's customer phone to the CRM Account, as the demo's
// mirrored flow and make bench do.
var costFlow = flow.Flow{ID: "erp-customer-to-crm", Enabled: true,
	Source:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
	Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
	Mapping: map[string]string{"Phone": "phone"}}

// run is one costing run: the stage, its meter and the fakes.
type run struct {
	ctx      context.Context
	deps     *compose.Stack
	prov     compose.Provisioned
	meter    *Meter
	rawAWS   aws.Config
	erp, crm *fakesystem.Server
	keys     map[tenant.Purpose][]byte
	logs     *byteCounter
	kms      *unwrapCounter
	// wire counts the DynamoDB requests on the wire, to check that the meter sees them all.
	wire        *wireCalls
	apiRequests float64
}

func costs(ctx context.Context, n int, callMS float64, out io.Writer) error {
	emu, err := emulators.Start(ctx, emulators.Options{})
	if err != nil {
		return err
	}
	defer emu.Stop()
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	r, stop, err := newRun(ctx)
	if err != nil {
		return err
	}
	defer stop()
	se, err := r.syncErrors(n)
	if err != nil {
		return err
	}
	fe, err := r.flowEvents(n)
	if err != nil {
		return err
	}
	sc, err := r.schedules()
	if err != nil {
		return err
	}
	rec, err := r.recurrences(n, max(n/4, 10))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "AWS cost from counted calls, us-east-1 on-demand list prices of %s (infra/cost/prices.go), %.0f ms per AWS call assumed\n",
		PricesDate, callMS)
	se.Write(out, ListPrices, callMS)
	cut, before, after := se.KeysOnlySaving(ListPrices, blueprint.TableProcessed)
	fmt.Fprintf(out, "Claim row's indexes: %s, so an update rewrites an entry only when it changes the index's key or "+
		"what it projects: %.1f WRU per sync error. Every index KEYS_ONLY would take %.1f: $%.2f less per million, and "+
		"the queue's listing would then read each page's rows in a second call (not counted here).\n",
		describeProjections(blueprint.Processed), before, after, cut)
	fe.Write(out, ListPrices, callMS)
	sc.Write(out, ListPrices, callMS)
	for _, p := range rec {
		p.Write(out, ListPrices, callMS)
	}
	ms, err := measureModelShare("shared/ai/testdata/diagnoser_*.json")
	if err != nil {
		return err
	}
	ms.write(out, Total(se.Lines(ListPrices, callMS)))
	return nil
}

// newRun provisions the stage and builds the stack with the meter in its AWS clients.
func newRun(ctx context.Context) (*run, func(), error) {
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	r := &run{ctx: ctx, logs: &byteCounter{}}
	env := map[string]string{"STAGE": costStage, "LOG_LEVEL": "info", platform.EnvConnectorsAllowLocal: "true",
		"LOCAL_SEALING_KEY": sealed.NewLocalKey()}
	for k, v := range env {
		os.Setenv(k, v)
	}
	var err error
	if r.rawAWS, err = config.LoadDefaultConfig(ctx); err != nil {
		return nil, stop, err
	}
	if r.prov, err = compose.Provision(ctx, r.rawAWS, costStage, sqsqueue.CreateOptions{}); err != nil {
		return nil, stop, err
	}
	for k, v := range r.prov.Env() {
		os.Setenv(k, v)
	}
	cfg, err := platform.ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, stop, err
	}
	awsCfg, err := platform.AWSConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, stop, err
	}
	unmetered := awsCfg.Copy()
	r.meter = NewMeter(costStage)
	r.wire = &wireCalls{next: awshttp.NewBuildableClient().GetTransport(), meter: r.meter}
	awsCfg.HTTPClient = &http.Client{Transport: r.wire}
	r.meter.Install(&awsCfg)
	b := platform.New(cfg, awsCfg, os.Getenv)
	r.meter.raw = dynamodb.NewFromConfig(unmetered, func(o *dynamodb.Options) { o.BaseEndpoint = b.Endpoint("DynamoDB") })
	var logTo io.Writer = r.logs
	if os.Getenv("COST_LOG") != "" { // also on stderr, to see why a path failed
		logTo = io.MultiWriter(r.logs, os.Stderr)
	}
	b.Log = slog.New(slog.NewJSONHandler(logTo, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(b.Log)
	emf.Out = r.logs
	sealer := b.Keeper.(*sealed.Sealer)
	r.kms = &unwrapCounter{Wrapper: sealer.Wrapper}
	sealer.Wrapper = r.kms
	if r.deps, err = compose.New(ctx, b); err != nil {
		return nil, stop, err
	}
	r.deps.Tokens = identitytest.RoleTokens{SubjectPrefix: "cost-"}
	if err := r.tenant(ctx, &stops); err != nil {
		return nil, stop, err
	}
	return r, stop, nil
}

// tenant creates the tenant with every flag on, its host ERP and CRM on fakes, and the
// ownership override that lets the host ERP write the CRM Account's phone.
func (r *run) tenant(ctx context.Context, stops *[]func()) error {
	admin := tenant.Admin{Store: r.deps.Tenants, Keeper: r.deps.Keeper}
	secrets, err := admin.Create(ctx, costTenant, nil)
	if err != nil {
		return err
	}
	r.keys = map[tenant.Purpose][]byte{}
	for p, s := range secrets {
		if r.keys[p], err = webhook.ParseSecret(s); err != nil {
			return err
		}
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, costTenant, k, "true"); err != nil {
			return err
		}
	}
	r.erp, r.crm = fakesystem.New(connector.SystemHostERP), fakesystem.New(connector.SystemCRM)
	for sys, fake := range map[connector.System]*fakesystem.Server{connector.SystemHostERP: r.erp, connector.SystemCRM: r.crm} {
		url, closeFn := serve(fake)
		*stops = append(*stops, closeFn)
		if err := admin.SetConnector(ctx, costTenant, string(sys), url, ""); err != nil {
			return err
		}
	}
	overrides := []governance.Entry{{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}}
	return r.deps.Manifests().(*governance.TenantManifests).SetOverrides(ctx, costTenant, overrides)
}

// reset starts a path's counts.
func (r *run) reset() {
	r.meter.Take()
	r.logs.take()
	r.kms.take()
	r.wire.take()
	r.apiRequests = 0
}

// finish fills the path's counts: the meter's, the logs (the functions' own bytes plus
// the runtime's lines per invocation and an access log line per API request) and KMS.
func (r *run) finish(pa *Path) {
	pa.Usage = r.meter.Take()
	for _, st := range pa.Stages {
		pa.Usage = pa.Usage.Add(st.Usage)
	}
	pa.APIRequests = r.apiRequests
	pa.KMSRequests = float64(r.kms.take())
	pa.LogBytes = float64(r.logs.take()) + r.apiRequests*accessLogBytes
	for _, l := range pa.Lambdas {
		pa.LogBytes += l.Count * lambdaPlatformLogBytes
	}
}

// byteCounter counts what the service logs.
type byteCounter struct{ n atomic.Int64 }

func (b *byteCounter) Write(p []byte) (int, error) { b.n.Add(int64(len(p))); return len(p), nil }
func (b *byteCounter) take() int64                 { return b.n.Swap(0) }

// wireCalls sees the requests below the SDK (the JSON protocol's X-Amz-Target), where a
// client built without the meter is seen too. It counts the DynamoDB requests, to check
// the meter's count, and books every SQS request on the meter ("sqs.SendMessage"): the
// ingest sends with a hand-written SendMessage (sqsjson), which no SDK middleware sees,
// and SQS bills each request, retries included.
type wireCalls struct {
	next  http.RoundTripper
	n     atomic.Int64
	meter *Meter
}

func (w *wireCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	target := r.Header.Get("X-Amz-Target")
	if strings.HasPrefix(target, "DynamoDB_20120810.") {
		w.n.Add(1)
	}
	if op, ok := strings.CutPrefix(target, "AmazonSQS."); ok {
		w.meter.add("sqs."+op, nil, 0)
	}
	return w.next.RoundTrip(r)
}

func (w *wireCalls) take() int { return int(w.n.Swap(0)) }

// unwrapCounter counts the key keeper's unwraps: in AWS each is a kms:Decrypt.
type unwrapCounter struct {
	sealed.Wrapper
	mu sync.Mutex
	n  int
}

func (u *unwrapCounter) Unwrap(ctx context.Context, wrapped []byte, aad map[string]string) ([]byte, error) {
	u.mu.Lock()
	u.n++
	u.mu.Unlock()
	return u.Wrapper.Unwrap(ctx, wrapped, aad)
}

func (u *unwrapCounter) take() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := u.n
	u.n = 0
	return n
}

// serve puts a fake system on a loopback port.
func serve(f *fakesystem.Server) (string, func()) {
	srv := httptest.NewServer(f.Handler())
	return srv.URL, srv.Close
}

// aiWhatIf is what a model would add per million sync errors at its list price (shared/ai
// price table), for the given tokens per call and calls per diagnosis.
func aiWhatIf(model string, in, out, calls float64) float64 {
	pin, pout, ok := ai.Price(model)
	if !ok {
		return 0
	}
	return 1e6 * calls * (in/1000*pin + out/1000*pout)
}

// describeProjections names what each of t's indexes projects ("by_status INCLUDE (37
// attributes), by_diagnosis KEYS_ONLY").
func describeProjections(t blueprint.Table) string {
	var parts []string
	for _, ix := range t.Indexes {
		d := ix.Name + " " + ix.Projection.Type()
		if n := len(ix.Projection.Include); n > 0 && !ix.Projection.KeysOnly {
			d += fmt.Sprintf(" (%d attributes)", n)
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, ", ")
}
