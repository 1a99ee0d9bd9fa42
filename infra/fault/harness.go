package fault

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// tenantID is the one tenant every scenario's stage holds.
const tenantID = "fault"

// Harness is the emulators every scenario shares, each scenario on a stage of its own.
// dynalite keeps its data on disk (a temporary directory), so a scenario can kill it and
// start it again on the same port and find every table and item it had.
type Harness struct {
	Emu *emulators.Emulators
	AWS aws.Config
	dir string
	// Logs is everything the service logged, and every EMF line, across all scenarios:
	// the leak check reads it.
	Logs *syncBuffer
}

// StartHarness starts the emulators and points the AWS SDK's standard variables at them.
func StartHarness(ctx context.Context) (*Harness, error) {
	dir, err := os.MkdirTemp("", "syncassist-fault-")
	if err != nil {
		return nil, err
	}
	emu, err := emulators.Start(ctx, emulators.Options{DynamoDBPath: dir + "/dynalite"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	h := &Harness{Emu: emu, dir: dir, Logs: &syncBuffer{}}
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	if h.AWS, err = config.LoadDefaultConfig(ctx); err != nil {
		h.Close()
		return nil, err
	}
	// EMF lines go to stdout by default; here they would interleave with the table.
	emf.Out = h.Logs
	return h, nil
}

// Close stops the emulators and removes dynalite's data.
func (h *Harness) Close() {
	h.Emu.Stop()
	os.RemoveAll(h.dir)
}

// StageOptions shape a scenario's stage.
type StageOptions struct {
	// Visibility is the diagnosis queue's visibility timeout in seconds (default 2), short
	// so that a failed delivery comes back within the scenario.
	Visibility int
	// StuckAfter is the reconcile's RECONCILE_STUCK_AFTER and the worker's
	// DIAGNOSIS_STALE_AFTER (default 10 minutes, as deployed: nothing is requeued early).
	StuckAfter time.Duration
	// FinanceLease is the finance approves' FINANCE_LEASE_TTL (default 2 minutes, as
	// deployed), short where a scenario waits for an approve's lease to end.
	FinanceLease time.Duration
}

// Stage is one scenario's service: its own tables and queues on the shared emulators, the
// compose stack built from them, one tenant with both flags on, the fake host ERP behind a
// Gate, and the API on a loopback port.
type Stage struct {
	h      *Harness
	Name   string
	Deps   *compose.Stack
	Prov   compose.Provisioned
	Key    []byte
	Secret string
	ERP    *fakesystem.Server
	Gate   *Gate
	URL    string
	Client *http.Client
	opt    StageOptions
	stop   []func()

	// View is what the checks read through, around any fault in front of the database.
	View Observer
}

// NewStage provisions and starts a stage. Close stops everything it started.
func (h *Harness) NewStage(ctx context.Context, name string, opt StageOptions) (st *Stage, err error) {
	if opt.Visibility == 0 {
		opt.Visibility = 2
	}
	if opt.StuckAfter == 0 {
		opt.StuckAfter = 10 * time.Minute
	}
	st = &Stage{h: h, Name: name, opt: opt}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	if err := st.provision(ctx); err != nil {
		return nil, err
	}
	if err := st.load(ctx); err != nil {
		return nil, err
	}
	st.View = st.newObserver()
	if err := st.serve(); err != nil {
		return nil, err
	}
	return st, nil
}

func (st *Stage) provision(ctx context.Context) error {
	prov, err := compose.Provision(ctx, st.h.AWS, st.Name, sqsqueue.CreateOptions{VisibilityTimeoutSeconds: st.opt.Visibility})
	if err != nil {
		return err
	}
	st.Prov = prov
	// The fake ERP is on loopback.
	env := map[string]string{"STAGE": st.Name, "LOG_LEVEL": "info", platform.EnvConnectorsAllowLocal: "true",
		"RECONCILE_STUCK_AFTER": st.opt.StuckAfter.String(), "DIAGNOSIS_STALE_AFTER": st.opt.StuckAfter.String()}
	for k, v := range prov.Env() {
		env[k] = v
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	// The environment is the process's: a stage without its own lease takes the default.
	if st.opt.FinanceLease > 0 {
		os.Setenv("FINANCE_LEASE_TTL", st.opt.FinanceLease.String())
	} else {
		os.Unsetenv("FINANCE_LEASE_TTL")
	}
	return nil
}

// load builds the stack, logging as JSON into the harness's buffer, and the tenant with
// its host ERP connector pointing at the gated fake.
func (st *Stage) load(ctx context.Context) error {
	deps, err := compose.Load(ctx)
	if err != nil {
		return err
	}
	deps.Log = slog.New(slog.NewJSONHandler(st.h.Logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(deps.Log)
	deps.Tokens = identitytest.RoleTokens{SubjectPrefix: "fault-"}
	st.Deps = deps
	admin := tenant.Admin{Store: deps.Tenants, Keeper: deps.Keeper}
	secrets, err := admin.Create(ctx, tenantID, nil)
	if err != nil {
		return err
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, tenantID, k, "true"); err != nil {
			return err
		}
	}
	st.Secret = secrets[tenant.PurposeIngest]
	if st.Key, err = webhook.ParseSecret(st.Secret); err != nil {
		return err
	}
	st.ERP = fakesystem.New(connector.SystemHostERP)
	st.Gate = &Gate{next: st.ERP.Handler()}
	erp := httptest.NewServer(st.Gate)
	st.stop = append(st.stop, erp.Close)
	return admin.SetConnector(ctx, tenantID, string(connector.SystemHostERP), erp.URL, "")
}

// serve mounts every HTTP function on a loopback port, as the local stack does.
func (st *Stage) serve() error {
	mux, err := st.Deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	st.stop = append(st.stop, func() { _ = srv.Close() })
	st.URL = "http://" + ln.Addr().String()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	st.stop = append(st.stop, tr.CloseIdleConnections)
	st.Client = &http.Client{Transport: tr, Timeout: 60 * time.Second}
	return nil
}

// Close stops the stage's pollers and servers, newest first. Safe to call twice.
func (st *Stage) Close() {
	for i := len(st.stop) - 1; i >= 0; i-- {
		st.stop[i]()
	}
	st.stop = nil
}

// StartPollers runs n pollers (the local stand-in for the SQS event source) on the
// diagnosis queue through the worker; wrap, when not nil, wraps the worker's handler.
// They stop with Close.
func (st *Stage) StartPollers(n int, wrap func(sqsqueue.BatchHandler) sqsqueue.BatchHandler) {
	h := sqsqueue.BatchHandler(st.Deps.Worker().HandleBatch)
	if wrap != nil {
		h = wrap(h)
	}
	q := st.Prov.Queues[blueprint.Diagnosis.Name]
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		p := &sqsqueue.Poller{Client: sqs.NewFromConfig(st.h.AWS), QueueURL: q.URL, QueueARN: q.ARN, Handler: h, BatchSize: 10,
			Visibility: time.Duration(st.opt.Visibility) * time.Second, Log: st.Deps.Log}
		go func() { defer wg.Done(); p.Run(ctx) }()
	}
	st.stop = append(st.stop, func() { cancel(); wg.Wait() })
}

// QueueDepth is the number of messages in the named queue, visible and in flight.
func (st *Stage) QueueDepth(ctx context.Context, name string) (int, error) {
	out, err := sqs.NewFromConfig(st.h.AWS).GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(st.Prov.Queues[name].URL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible},
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible} {
		var v int
		fmt.Sscan(out.Attributes[string(k)], &v)
		n += v
	}
	return n, nil
}

// Reconcile runs both backstops once: the sync-error reconcile and the finance lease
// sweep, as the scheduled functions do.
func (st *Stage) Reconcile(ctx context.Context) (intake.Report, error) {
	return st.Deps.RunBackstops(ctx)
}

// Gate stands in front of the fake host ERP: it logs every request (time, idempotency key,
// the status answered) and, while an outage is set, answers it itself without passing it
// on. It uses none of fakesystem's failure injection, whose count-based failures cannot
// express "for a minute" nor rate-limit reset headers.
type Gate struct {
	next http.Handler
	mu   sync.Mutex
	log  []GateEntry
	// outage answers requests until it returns 0.
	outage func(now time.Time, n int) (status int, retryAfter time.Duration)
	n      int
}

// GateEntry is one request the fake ERP received.
type GateEntry struct {
	At     time.Time
	Method string
	Path   string
	Key    string
	Status int
	// RetryAfter is what a refused request was told to wait.
	RetryAfter time.Duration
}

// SetOutage installs (or, with nil, removes) an outage.
func (g *Gate) SetOutage(f func(now time.Time, n int) (int, time.Duration)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.outage = f
}

// Log returns a copy of the requests so far.
func (g *Gate) Log() []GateEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]GateEntry(nil), g.log...)
}

func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	e := GateEntry{At: now, Method: r.Method, Path: r.URL.Path, Key: r.Header.Get(connector.HeaderIdempotencyKey)}
	g.mu.Lock()
	g.n++
	if g.outage != nil {
		e.Status, e.RetryAfter = g.outage(now, g.n)
	}
	g.mu.Unlock()
	if e.Status != 0 {
		refuse(w, e.Status, e.RetryAfter, now)
	} else {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		g.next.ServeHTTP(rec, r)
		e.Status = rec.status
	}
	g.mu.Lock()
	g.log = append(g.log, e)
	g.mu.Unlock()
}

// erpWrites counts per record id what the fake ERP saw, whatever the service believes it
// sent: the writes it applied (its own log, by record, whatever the idempotency key), and
// the write requests it answered 2xx (the gate's log: a replay of an idempotency key, which
// the fake answers without applying it again, still counts).
func (st *Stage) erpWrites() (applied, answered map[string]int) {
	applied, answered = map[string]int{}, map[string]int{}
	for _, w := range st.ERP.Writes() {
		applied[w.ID]++
	}
	for _, e := range st.Gate.Log() {
		if isWrite(e.Method, e.Path) && e.Status >= 200 && e.Status < 300 {
			answered[path.Base(e.Path)]++
		}
	}
	return applied, answered
}

// isWrite tells a record write from a read.
func isWrite(method, p string) bool {
	return !isQuery(p) && (method == http.MethodPatch || method == http.MethodPut || method == http.MethodPost)
}

// isQuery: NetSuite's SuiteQL query, the reconcile's poll of sync errors, is a POST that
// reads and changes nothing.
func isQuery(p string) bool { return strings.Contains(p, "/query/v1/suiteql") }

// countWrites fills lost (no write applied) and doubled (more than one applied, or more
// than one write request answered 2xx) for each record id.
func countWrites(row *Row, recordIDs []string, applied, answered map[string]int) {
	for _, id := range recordIDs {
		switch {
		case applied[id] == 0:
			row.Lost++
		case applied[id] > 1 || answered[id] > 1:
			row.Doubled++
		case answered[id] == 0:
			row.failf("%s: the fake ERP applied a write the gate never passed on", id)
		}
	}
}

// refuse answers as a rate-limiting gateway or a failing system does: 429 with Retry-After
// and the X-RateLimit-* reset headers, or a bare 5xx.
func refuse(w http.ResponseWriter, status int, retryAfter time.Duration, now time.Time) {
	if retryAfter > 0 {
		secs := int(retryAfter / time.Second)
		w.Header().Set("Retry-After", fmt.Sprint(secs))
		w.Header().Set("X-RateLimit-Limit", "100")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", fmt.Sprint(now.Add(retryAfter).Unix()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"error":{"code":"injected","message":"injected by the fault suite"}}`)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// syncBuffer collects output from concurrent goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Len is how much has been written so far: an offset for From.
func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// From returns what was written after offset.
func (s *syncBuffer) From(offset int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b.Bytes()[offset:])
}
