package finance_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

func newFinance(t testing.TB, e emutest.Emulator) *finance.DynamoStore {
	t.Helper()
	db, table := e.Tables(t)
	return finance.NewDynamoStore(db, table(blueprint.TableFinanceApprovals))
}

func TestFinanceContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		financetest.RunStoreContract(t, func(t *testing.T) finance.Store { return newFinance(t, e) })
	})
}

// financeEnv is the approve path as deployed, on the emulator: the finance, audit and
// governance tables in dynalite, the real guard, and a fake host ERP over loopback HTTP.
type financeEnv struct {
	svc  *finance.Service
	erp  *fakesystem.Server
	who  identity.Identity
	mu   sync.Mutex
	time map[finance.Stage][]time.Duration
}

type hostERPConfig struct{ url string }

func (c hostERPConfig) ConnectorConfig(_ context.Context, _ string, sys connector.System) (connector.Config, error) {
	return connector.Config{AllowLoopback: true, System: sys, BaseURL: c.url, MaxAttempts: 1}, nil
}

type dlpRedactor struct{ s *dlp.Scanner }

func (r dlpRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

func newFinanceEnv(t testing.TB) *financeEnv {
	t.Helper()
	db, _ := emutest.Clients(t)
	stage := emutest.Stage(t)
	if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
		t.Fatal(err)
	}
	e := &financeEnv{erp: fakesystem.New(connector.SystemHostERP), time: map[finance.Stage][]time.Duration{},
		who: identity.Identity{TenantID: "acme", Actor: "alice", Roles: []string{identity.RoleApprover}, Source: identity.SourceAuth}}
	srv := httptest.NewServer(e.erp.Handler())
	t.Cleanup(srv.Close)
	scanner := dlp.NewScanner()
	log := &audit.Log{Store: audit.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableAudit)), Redactor: dlpRedactor{scanner}}
	gov := governance.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableGovernance))
	registry := connector.NewRegistry(hostERPConfig{srv.URL}, time.Hour)
	guard, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: gov},
		Ledger:    gov, Records: gov, Scanner: scanner, Audit: log,
		Connectors: governance.RegistryConnectors(registry),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = &finance.Service{
		Store: finance.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableFinanceApprovals)),
		ERP:   finance.GuardUpdater{Guard: guard, Records: registry}, Audit: log,
		Hooks: finance.Hooks{Stage: func(s finance.Stage, d time.Duration) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.time[s] = append(e.time[s], d)
		}},
	}
	return e
}

// seed creates n pending approvals and their ERP records.
func (e *financeEnv) seed(t testing.TB, n int) []string {
	t.Helper()
	ids := make([]string, n)
	now := time.Now()
	for i := range n {
		a := financetest.SampleApproval("acme", fmt.Sprintf("FA-%05d", i), now)
		if created, err := e.svc.Store.Create(context.Background(), a); err != nil || !created {
			t.Fatalf("seed %s: %v %v", a.ID, created, err)
		}
		e.erp.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "pendingApproval"})
		ids[i] = a.ID
	}
	return ids
}

func (e *financeEnv) stages() map[finance.Stage][]time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[finance.Stage][]time.Duration{}
	for k, v := range e.time {
		out[k] = slices.Clone(v)
	}
	return out
}

// On the emulator too, of 50 concurrent approves of one row exactly one takes the lease
// and updates the ERP; the others answer 409.
func TestFinanceFiftyConcurrentApprovesOnDynamo(t *testing.T) {
	e := newFinanceEnv(t)
	id := e.seed(t, 1)[0]
	h := e.svc.ApproveHandler()
	const n = 50
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			r := httptest.NewRequest(http.MethodPost, "/api/finance-ops/approvals/"+id+"/approve", strings.NewReader(`{"confirm": true}`))
			r.SetPathValue("id", id)
			r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{identity.RoleApprover}}))
			w := httptest.NewRecorder()
			<-start
			h.ServeHTTP(w, r)
			statuses <- w.Code
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusConflict] != n-1 {
		t.Fatalf("statuses %v, want one 200 and %d 409", count, n-1)
	}
	if w := e.erp.WriteCount(); w != 1 {
		t.Fatalf("the ERP applied %d updates, want 1", w)
	}
	a, err := e.svc.Store.Get(context.Background(), "acme", id)
	if err != nil || a.Status != finance.StatusAccepted || a.Lease != nil {
		t.Fatalf("row %+v err=%v", a, err)
	}
}

// TestFinanceApproveLatencyBreakdown approves rows one after another on the emulators and
// logs each stage's latency; run with -v to read it (the benchmark reports the means).
func TestFinanceApproveLatencyBreakdown(t *testing.T) {
	if testing.Short() {
		t.Skip("latency breakdown skipped in -short")
	}
	e := newFinanceEnv(t)
	const n = 60
	ids := e.seed(t, n)
	var total []time.Duration
	for _, id := range ids {
		start := time.Now()
		if _, err := e.svc.Approve(context.Background(), e.who, id, nil); err != nil {
			t.Fatal(err)
		}
		total = append(total, time.Since(start))
	}
	st := e.stages()
	for _, s := range []finance.Stage{finance.StageBegin, finance.StageERP, finance.StageComplete, finance.StageAudit} {
		if len(st[s]) != n {
			t.Fatalf("stage %s timed %d times, want %d", s, len(st[s]), n)
		}
		t.Logf("%-8s %s", s, summary(st[s]))
	}
	t.Logf("%-8s %s", "total", summary(total))
}

func summary(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return fmt.Sprintf("n=%d mean=%v p50=%v p95=%v max=%v", len(s), (sum / time.Duration(len(s))).Round(time.Microsecond),
		q(0.50).Round(time.Microsecond), q(0.95).Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond))
}

// BenchmarkFinanceApprove measures one approve end to end on the emulators — lease begin
// (dynalite), the guarded ERP update (governance checks and ledger on dynalite, the fake
// ERP over loopback HTTP), completion (dynalite) and the audit record (dynalite) — and
// reports each stage's mean per approve.
func BenchmarkFinanceApprove(b *testing.B) {
	e := newFinanceEnv(b)
	ids := e.seed(b, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := e.svc.Approve(ctx, e.who, ids[i], nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	for s, ds := range e.stages() {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		b.ReportMetric(float64(sum.Microseconds())/float64(b.N), string(s)+"-µs/op")
	}
}

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

// A state change the SDK sent again after its first was applied (its answer lost) is
// done: the accept holds the lease it took rather than being refused by it. Another
// accept while that lease holds is still refused.
func TestDynamoTransitionSentTwiceIsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := finance.NewDynamoStore(db, table(blueprint.TableFinanceApprovals))
		twice := finance.NewDynamoStore(e.SentTwice(t, "UpdateItem"), table(blueprint.TableFinanceApprovals))
		at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		a := financetest.SampleApproval("t1", "FA-1", at)
		if _, err := s.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		mine := finance.Lease{Token: "tok-1", ExpiresAt: at.Add(time.Minute)}
		got, err := twice.BeginAccept(ctx, "t1", a.ID, mine, at.Add(time.Second))
		if err != nil || got.Status != finance.StatusApplying || got.Lease == nil || *got.Lease != mine {
			t.Fatalf("an accept sent twice: %+v, %v", got, err)
		}
		other := finance.Lease{Token: "tok-2", ExpiresAt: at.Add(2 * time.Minute)}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, other, at.Add(2*time.Second)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("another accept while the lease holds: %v, want ErrStateChanged", err)
		}
	})
}
