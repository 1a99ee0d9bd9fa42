package governance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

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

// redactor is audit.Redactor over DLP's record policy, as the wiring builds it.
type redactor struct{ s *dlp.Scanner }

// RedactText is the production redactor's text path (platform.RecordRedactor).
func (r redactor) RedactText(_ context.Context, text string) (string, error) {
	return r.s.RedactString(dlp.Record, text)
}

func (r redactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

// configs points every tenant's connectors at the fake systems, except the systems
// listed as not configured.
type configs struct {
	base          string
	notConfigured map[connector.System]bool
	// wrap, when set, wraps the guard's connectors (withConnectors).
	wrap func(governance.Connectors) governance.Connectors
}

func (c configs) ConnectorConfig(_ context.Context, tenant string, sys connector.System) (connector.Config, error) {
	if c.notConfigured[sys] {
		return connector.Config{AllowLoopback: true}, fmt.Errorf("tenant %s has no %s connector: %w", tenant, sys, connector.ErrNotConfigured)
	}
	return connector.Config{AllowLoopback: true, System: sys, BaseURL: c.base + "/fake/" + string(sys) + fakesystem.BasePath(sys), MaxAttempts: 1}, nil
}

// env is a guard over in-memory stores, writing to fake systems over real HTTP.
type env struct {
	t         *testing.T
	guard     *governance.Guard
	records   *governancetest.Store
	ledger    *governancetest.Ledger
	overrides *governancetest.Overrides
	manifests *governance.TenantManifests
	audit     *audittest.Store
	auditLog  *audit.Log
	alerts    *governancetest.Alerts
	fakes     map[connector.System]*fakesystem.Server
	clock     *clock
}

type envOption func(*governance.Deps, *configs)

func withLoopWindow(d time.Duration) envOption {
	return func(deps *governance.Deps, _ *configs) { deps.LoopWindow = d }
}

// withConnectors wraps the connectors the guard writes through.
func withConnectors(wrap func(governance.Connectors) governance.Connectors) envOption {
	return func(_ *governance.Deps, c *configs) { c.wrap = wrap }
}

func withNotConfigured(s connector.System) envOption {
	return func(_ *governance.Deps, c *configs) { c.notConfigured[s] = true }
}

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	e := &env{
		t: t, records: &governancetest.Store{}, ledger: &governancetest.Ledger{}, overrides: &governancetest.Overrides{},
		audit: &audittest.Store{}, alerts: &governancetest.Alerts{}, fakes: map[connector.System]*fakesystem.Server{},
		clock: &clock{now: t0},
	}
	mux := http.NewServeMux()
	for _, sys := range connector.Systems {
		e.fakes[sys] = fakesystem.New(sys)
		mux.Handle("/fake/"+string(sys)+"/", http.StripPrefix("/fake/"+string(sys), e.fakes[sys].Handler()))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cfg := configs{base: srv.URL, notConfigured: map[connector.System]bool{}}
	scanner := dlp.NewScanner()
	e.manifests = &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: e.overrides}
	e.auditLog = &audit.Log{Store: e.audit, Redactor: redactor{scanner}, Now: e.clock.Now}
	deps := governance.Deps{
		Manifests: e.manifests, Ledger: e.ledger, Records: e.records, Scanner: scanner,
		Audit: e.auditLog, Alerter: e.alerts, Now: e.clock.Now,
	}
	for _, o := range opts {
		o(&deps, &cfg)
	}
	deps.Connectors = governance.RegistryConnectors(connector.NewRegistry(cfg, time.Hour))
	if cfg.wrap != nil {
		deps.Connectors = cfg.wrap(deps.Connectors)
	}
	g, err := governance.NewGuard(deps)
	if err != nil {
		t.Fatal(err)
	}
	e.guard = g
	return e
}

// seed creates the record on the fake system, since the fakes only update existing ones.
// An existing record is left as it is: re-seeding would undo an earlier write, which the
// connector's read-compare-write would then rightly apply again.
func (e *env) seed(sys connector.System, entity, id string) {
	if _, ok := e.fakes[sys].Get(entity, id); !ok {
		e.fakes[sys].Seed(entity, id, map[string]any{"seeded": true})
	}
}

func (e *env) write(id identity.Identity, req governance.WriteRequest) (governance.Result, error) {
	e.t.Helper()
	e.seed(req.Target, req.Entity, req.RecordID)
	return e.guard.Write(context.Background(), id, req)
}

// audits returns the audit records with the action key, oldest first.
func (e *env) audits(key string) []audit.Record {
	var out []audit.Record
	for _, r := range e.audit.All() {
		if r.ActionKey == key {
			out = append(out, r)
		}
	}
	return out
}

func (e *env) totalWrites() int {
	n := 0
	for _, f := range e.fakes {
		n += f.WriteCount()
	}
	return n
}

func operator(tenant string) identity.Identity {
	return identity.Identity{TenantID: tenant, Actor: "alice", Roles: []string{identity.RoleApprover}, Source: identity.SourceAuth}
}

var keySeq struct {
	sync.Mutex
	n int
}

func newKey() string {
	keySeq.Lock()
	defer keySeq.Unlock()
	keySeq.n++
	return fmt.Sprintf("key-%d", keySeq.n)
}

func req(source, target connector.System, entity, id string, fields map[string]any) governance.WriteRequest {
	return governance.WriteRequest{Source: source, Target: target, Entity: entity, RecordID: id, Fields: fields,
		IdempotencyKey: newKey(), Reason: "test.write"}
}

// mustNotContain fails if any audit record or governance record holds one of values.
func (e *env) mustNotContain(values ...string) {
	e.t.Helper()
	var docs []string
	for _, r := range e.audit.All() {
		b, _ := json.Marshal(r)
		docs = append(docs, string(b))
	}
	for _, r := range e.records.Rejections() {
		docs = append(docs, fmt.Sprintf("%+v", r))
	}
	for _, l := range e.records.Loops() {
		docs = append(docs, fmt.Sprintf("%+v", l))
	}
	for _, d := range docs {
		for _, v := range values {
			if strings.Contains(d, v) {
				e.t.Fatalf("a record holds the value %q: %s", v, d)
			}
		}
	}
}
