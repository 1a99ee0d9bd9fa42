package finance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const (
	tenantID      = "acme"
	webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	// ingestSecret signs the tenant's sync-error webhook; it must not create approvals.
	ingestSecret = "whsec_aW5nZXN0LW9ubHktc2VjcmV0LW5vdC1mb3ItZmluYW5jZQ=="
	base         = "/api/finance-ops/approvals"
)

// clock is a settable time source, safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type noRedact struct{}

func (noRedact) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return doc, nil }

// countingStore counts the store's calls by method, to show what an operation touches.
type countingStore struct {
	finance.Store
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingStore) count(m string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[m]++
}

func (c *countingStore) Calls() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

func (c *countingStore) Create(ctx context.Context, a finance.Approval) (bool, error) {
	c.count("Create")
	return c.Store.Create(ctx, a)
}

func (c *countingStore) Get(ctx context.Context, tenantID, id string) (finance.Approval, error) {
	c.count("Get")
	return c.Store.Get(ctx, tenantID, id)
}

func (c *countingStore) BeginAccept(ctx context.Context, tenantID, id string, l finance.Lease, now time.Time) (finance.Approval, error) {
	c.count("BeginAccept")
	return c.Store.BeginAccept(ctx, tenantID, id, l, now)
}

func (c *countingStore) CompleteAccept(ctx context.Context, tenantID, id, token, by string, now time.Time) (finance.Approval, error) {
	c.count("CompleteAccept")
	return c.Store.CompleteAccept(ctx, tenantID, id, token, by, now)
}

func (c *countingStore) Revert(ctx context.Context, tenantID, id, token, lastError string, now time.Time) error {
	c.count("Revert")
	return c.Store.Revert(ctx, tenantID, id, token, lastError, now)
}

func (c *countingStore) Reject(ctx context.Context, tenantID, id, by, note string, now time.Time) (finance.Approval, error) {
	c.count("Reject")
	return c.Store.Reject(ctx, tenantID, id, by, note, now)
}

// fixture is the finance service over the in-memory store, mounted behind the same
// middleware the app puts in front of each route.
type fixture struct {
	t       *testing.T
	mem     *financetest.Store
	store   *countingStore
	audits  *audittest.Store
	clock   *clock
	svc     *finance.Service
	mux     http.Handler
	tenants *tenanttest.Store
}

func newFixture(t *testing.T, erp finance.ERPUpdater) *fixture {
	t.Helper()
	f := &fixture{t: t, mem: financetest.NewStore(), audits: &audittest.Store{}, clock: &clock{now: t0}, tenants: tenanttest.NewStore()}
	f.store = &countingStore{Store: f.mem}
	if err := f.tenants.Create(context.Background(), tenant.Config{ID: tenantID,
		WebhookSecrets: []tenant.Secret{{Value: ingestSecret, CreatedAt: t0.Add(-time.Hour)}},
		FinanceSecrets: []tenant.Secret{{Value: webhookSecret, CreatedAt: t0.Add(-time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	f.svc = &finance.Service{
		Store: f.store, ERP: erp, Now: f.clock.Now,
		Audit:    &audit.Log{Store: f.audits, Redactor: noRedact{}, Now: f.clock.Now},
		HostAuth: &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeFinance), Tenants: tenant.Directory{Reader: f.tenants}, Verifier: webhook.Verifier{Now: f.clock.Now}, Now: f.clock.Now},
	}
	operator := func(h http.Handler) http.Handler {
		return identity.ValidateGuestContext(identity.RequireRole(identity.RoleOperator, h))
	}
	approver := func(h http.Handler) http.Handler {
		return identity.ValidateGuestContext(identity.RequireApproverRole(h))
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+base, operator(f.svc.ListHandler()))
	mux.Handle("GET "+base+"/{id}", operator(f.svc.DetailHandler()))
	mux.Handle("POST "+base+"/{id}/approve", approver(f.svc.ApproveHandler()))
	mux.Handle("POST "+base+"/{id}/reject", approver(f.svc.RejectHandler()))
	mux.Handle("POST "+base, f.svc.CreateHandler())
	f.mux = mux
	return f
}

var (
	approverAlice = &identity.Principal{Subject: "alice", TenantID: tenantID, Roles: []string{identity.RoleOperator, identity.RoleApprover}}
	approverBob   = &identity.Principal{Subject: "bob", TenantID: tenantID, Roles: []string{identity.RoleApprover}}
	operatorOnly  = &identity.Principal{Subject: "olga", TenantID: tenantID, Roles: []string{identity.RoleOperator}}
	otherTenant   = &identity.Principal{Subject: "mallory", TenantID: "globex", Roles: []string{identity.RoleOperator, identity.RoleApprover}}
)

// call sends a request as p (anonymous when nil).
func (f *fixture) call(p *identity.Principal, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if p != nil {
		r = r.WithContext(identity.WithAuth(r.Context(), *p))
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

// confirmed is the body of an approve that confirms any amount: the sample rows are above
// the default confirmation threshold, which confirm_test.go covers.
const confirmed = `{"confirm": true}`

func (f *fixture) approve(p *identity.Principal, id string) *httptest.ResponseRecorder {
	return f.call(p, http.MethodPost, base+"/"+id+"/approve", confirmed)
}

// mustCreate stores a pending row of the fixture's tenant created at the clock's time.
func (f *fixture) mustCreate(id, erpID string) finance.Approval {
	f.t.Helper()
	a := financetest.SampleApproval(tenantID, id, f.clock.Now())
	a.ERPID = erpID
	if created, err := f.mem.Create(context.Background(), a); err != nil || !created {
		f.t.Fatalf("create %s: %v %v", id, created, err)
	}
	return a
}

func (f *fixture) row(id string) finance.Approval {
	f.t.Helper()
	a, err := f.mem.Get(context.Background(), tenantID, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

// auditsOf returns the audit records with action key, oldest first.
func (f *fixture) auditsOf(key string) []audit.Record {
	var out []audit.Record
	for _, r := range f.audits.All() {
		if r.ActionKey == key {
			out = append(out, r)
		}
	}
	return out
}

func details(t *testing.T, r audit.Record) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("audit details %s: %v", r.Details, err)
	}
	return d
}

type problem struct {
	Status int
	Code   string
	Detail string
}

func problemOf(t *testing.T, w *httptest.ResponseRecorder) problem {
	t.Helper()
	var p problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("not a problem: %d %s", w.Code, w.Body)
	}
	return p
}

func wantProblem(t *testing.T, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if w.Code != status || problemOf(t, w).Code != code {
		t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, status, code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q", ct)
	}
}

// hostERP is the governance guard writing to a fake host ERP over real HTTP, as the app
// wires it, with the guard's stores in memory.
type hostERP struct {
	fake      *fakesystem.Server
	guard     *governance.Guard
	overrides *governancetest.Overrides
	records   *governancetest.Store
	ledger    *governancetest.Ledger
	registry  *connector.Registry
	url       string
}

type hostOption func(*hostConfigs, *governance.Deps)

// notConfigured makes the tenant have no host ERP connector.
func notConfigured(c *hostConfigs, _ *governance.Deps) { c.notConfigured = true }

// manifestsDown makes the ownership check unable to read the tenant's manifest.
func manifestsDown(_ *hostConfigs, d *governance.Deps) {
	d.Manifests = &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: failingOverrides{}}
}

// withHandler serves the host ERP with h instead of the fake.
func withHandler(h http.Handler) hostOption {
	return func(c *hostConfigs, _ *governance.Deps) { c.handler = h }
}

type failingOverrides struct{}

func (failingOverrides) Overrides(context.Context, string) ([]governance.Entry, error) {
	return nil, errors.New("dynamodb: connection reset")
}

func (failingOverrides) PutOverrides(context.Context, string, []governance.Entry) error {
	return errors.New("dynamodb: connection reset")
}

type hostConfigs struct {
	url           string
	notConfigured bool
	handler       http.Handler
	budget        connector.Budget
}

func (c *hostConfigs) ConnectorConfig(_ context.Context, tenant string, sys connector.System) (connector.Config, error) {
	if c.notConfigured || sys != connector.SystemHostERP {
		return connector.Config{AllowLoopback: true}, fmt.Errorf("tenant %s has no %s connector: %w", tenant, sys, connector.ErrNotConfigured)
	}
	return connector.Config{AllowLoopback: true, System: sys, BaseURL: c.url, MaxAttempts: 1, Budget: c.budget}, nil
}

func newHostERP(t testing.TB, now func() time.Time, log *audit.Log, opts ...hostOption) *hostERP {
	t.Helper()
	h := &hostERP{fake: fakesystem.New(connector.SystemHostERP), overrides: &governancetest.Overrides{}, records: &governancetest.Store{},
		ledger: &governancetest.Ledger{}}
	cfg := &hostConfigs{}
	deps := governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: h.overrides},
		Ledger:    h.ledger, Records: h.records, Scanner: dlp.NewScanner(),
		Audit: log, Alerter: &governancetest.Alerts{}, Now: now,
	}
	for _, o := range opts {
		o(cfg, &deps)
	}
	handler := cfg.handler
	if handler == nil {
		handler = h.fake.Handler()
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	cfg.url, h.url = srv.URL, srv.URL
	h.registry = connector.NewRegistry(cfg, time.Hour)
	deps.Connectors = governance.RegistryConnectors(h.registry)
	g, err := governance.NewGuard(deps)
	if err != nil {
		t.Fatal(err)
	}
	h.guard = g
	return h
}

// seed creates the ERP record an approval updates.
func (h *hostERP) seed(a finance.Approval) {
	h.fake.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "pendingApproval", "amount": a.Amount, "vendor": a.Vendor})
}

// newGuardFixture is a fixture whose ERP updates go through the real guard to a fake host
// ERP over HTTP.
func newGuardFixture(t *testing.T, opts ...hostOption) (*fixture, *hostERP) {
	t.Helper()
	f := newFixture(t, nil)
	h := newHostERP(t, f.clock.Now, f.svc.Audit.(*audit.Log), opts...)
	f.svc.ERP = finance.GuardUpdater{Guard: h.guard, Records: h.registry}
	f.svc.Ledger = h.ledger
	return f, h
}

// gate is an ERPUpdater wrapper that blocks chosen calls until released, so a test can
// hold an approve between its lease and its completion.
type gate struct {
	next    finance.ERPUpdater
	calls   atomic.Int32
	mu      sync.Mutex
	entered map[int]chan struct{}
	release map[int]chan struct{}
}

func newGate(next finance.ERPUpdater, blocked ...int) *gate {
	g := &gate{next: next, entered: map[int]chan struct{}{}, release: map[int]chan struct{}{}}
	for _, n := range blocked {
		g.entered[n], g.release[n] = make(chan struct{}), make(chan struct{})
	}
	return g
}

func (g *gate) Update(ctx context.Context, who identity.Identity, a finance.Approval, key string) (connector.WriteResult, error) {
	n := int(g.calls.Add(1))
	g.mu.Lock()
	entered, release := g.entered[n], g.release[n]
	g.mu.Unlock()
	if entered != nil {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return connector.WriteResult{}, ctx.Err()
		}
	}
	return g.next.Update(ctx, who, a, key)
}

func (g *gate) Applied(ctx context.Context, who identity.Identity, a finance.Approval) (bool, error) {
	return g.next.Applied(ctx, who, a)
}

// waitEntered waits until call n is blocked in the gate.
func (g *gate) waitEntered(t *testing.T, n int) {
	t.Helper()
	select {
	case <-g.entered[n]:
	case <-time.After(10 * time.Second):
		t.Fatalf("ERP call %d never started", n)
	}
}

func (g *gate) open(n int) { close(g.release[n]) }
