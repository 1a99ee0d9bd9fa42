package flow_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

// matchEnv runs flows through the real guard into fake vendors over HTTP, with runs and
// the cross-reference in the flows table on the emulator.
type matchEnv struct {
	t     testing.TB
	store *flow.DynamoStore
	x     *flow.Executor
	crm   *fakesystem.Server
	reg   *connector.Registry
	guard *governance.Guard
	rep   *reporter
	// overrides are the tenant's manifest overrides, and records the guard's approvals.
	overrides *governancetest.Overrides
	records   *governancetest.Store
	mu        sync.Mutex
	now       time.Time
	seq       int
	// dropCreates makes the CRM apply that many creates and then drop their connections,
	// so the answer is lost.
	dropCreates int
	// crmServe, when set, serves the CRM's requests in place of the above.
	crmServe http.Handler
}

func (e *matchEnv) crmHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		drop := r.Method == http.MethodPost && e.dropCreates > 0
		if drop {
			e.dropCreates--
		}
		serve := e.crmServe
		e.mu.Unlock()
		if serve != nil {
			serve.ServeHTTP(w, r)
			return
		}
		if drop {
			e.crm.ServeHTTP(httptest.NewRecorder(), r)
			panic(http.ErrAbortHandler)
		}
		e.crm.ServeHTTP(w, r)
	})
}

type fakeConfigs struct{ base string }

func (c fakeConfigs) ConnectorConfig(_ context.Context, _ string, sys connector.System) (connector.Config, error) {
	return connector.Config{AllowLoopback: true, System: sys, BaseURL: c.base + "/fake/" + string(sys) + fakesystem.BasePath(sys),
		BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}, nil
}

// registryFinder is flow.Finder over the connectors, as the wiring builds it.
type registryFinder struct{ reg *connector.Registry }

func (f registryFinder) Find(ctx context.Context, tenantID string, sys connector.System, entity, field, value string) ([]string, error) {
	c, err := f.reg.Client(ctx, tenantID, sys)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, entity, field, value)
}

type plainRedactor struct{}

func (plainRedactor) RedactText(_ context.Context, s string) (string, error) { return s, nil }
func (plainRedactor) RedactJSON(_ context.Context, b []byte) ([]byte, error) { return b, nil }

func newMatchEnv(t testing.TB, m flow.Match) *matchEnv {
	t.Helper()
	e := &matchEnv{t: t, store: newStore(t), crm: fakesystem.New(connector.SystemCRM), rep: &reporter{}, now: t0}
	mux := http.NewServeMux()
	mux.Handle("/fake/crm/", http.StripPrefix("/fake/crm", e.crmHandler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e.reg = connector.NewRegistry(fakeConfigs{srv.URL}, time.Hour)
	overrides := &governancetest.Overrides{}
	e.overrides, e.records = overrides, &governancetest.Store{}
	ctx := context.Background()
	// The host ERP owns the account fields its flow writes, as the demo tenant's manifest says.
	if err := overrides.PutOverrides(ctx, "t1", []governance.Entry{
		{Entity: "account", Field: "Name", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "account", Field: "ERP_Customer_Id__c", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
	}); err != nil {
		t.Fatal(err)
	}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Ledger:    &governancetest.Ledger{}, Records: e.records, Connectors: governance.RegistryConnectors(e.reg),
		Scanner: dlp.NewScanner(), Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}, Now: e.clock}, Now: e.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.guard = g
	e.x = &flow.Executor{Store: e.store, Guard: g, SyncErrors: e.rep, Now: e.clock, XRefs: e.store, Finder: registryFinder{e.reg}}
	f := flow.Flow{ID: "erp-customer-to-crm", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Mapping: map[string]string{"Name": "companyName", "Phone": "phone"},
		Match: &m}
	if errs := f.Validate(); len(errs) > 0 {
		t.Fatalf("flow: %v", errs)
	}
	if err := e.store.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *matchEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// change posts a host ERP customer change and returns its run as stored.
func (e *matchEnv) change(record, phone string) flow.Run {
	e.t.Helper()
	e.mu.Lock()
	e.seq++
	id := "ev-" + string(rune('a'+e.seq))
	e.mu.Unlock()
	ids, _, err := e.x.Handle(context.Background(), "t1", connector.SystemHostERP, flow.Event{EventID: id, Entity: "customer",
		RecordID: record, ChangedAt: t0, Fields: map[string]any{"companyName": "Nordwind Handel GmbH", "phone": phone}})
	if err != nil || len(ids) != 1 {
		e.t.Fatalf("handle: %v %v", ids, err)
	}
	return e.run(ids[0])
}

func (e *matchEnv) run(id string) flow.Run {
	e.t.Helper()
	r, err := e.store.Run(context.Background(), "t1", id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// redriveAll runs the redrive until no run is due, moving the clock past every backoff.
func (e *matchEnv) redriveAll() {
	e.t.Helper()
	for range 6 {
		e.mu.Lock()
		e.now = e.now.Add(2 * time.Hour)
		e.mu.Unlock()
		if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
			e.t.Fatal(err)
		}
	}
}

// accounts are the CRM accounts holding the customer's id.
func (e *matchEnv) accounts(customer string) []string {
	ids, err := registryFinder{e.reg}.Find(context.Background(), "t1", connector.SystemCRM, "Account", "ERP_Customer_Id__c", customer)
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

var matches = map[string]flow.Match{
	"externalId": {By: flow.MatchExternalID, Field: "ERP_Customer_Id__c", Create: true},
	"lookup":     {By: flow.MatchLookup, Field: "ERP_Customer_Id__c", Create: true},
}

// TestMatchedFlowCreatesThenUpdates: a new customer becomes a new Account, linked both
// ways in the cross-reference and named in the run; its next change updates that Account.
func TestMatchedFlowCreatesThenUpdates(t *testing.T) {
	for name, m := range matches {
		t.Run(name, func(t *testing.T) {
			e := newMatchEnv(t, m)
			first := e.change("C-9001", "+49 40 1")
			if first.Outcome != flow.OutcomeWritten || first.TargetAction != flow.ActionCreated || first.TargetID == "" {
				t.Fatalf("first run %+v, want written, created, with the Account's id", first)
			}
			acc, ok := e.crm.Get("Account", first.TargetID)
			if !ok || acc.Fields["ERP_Customer_Id__c"] != "C-9001" || acc.Fields["Phone"] != "+49 40 1" {
				t.Fatalf("CRM Account %s = %+v", first.TargetID, acc)
			}
			ctx := context.Background()
			src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9001"}
			x, err := e.store.XRef(ctx, "t1", src, first.Target)
			if err != nil || x.State != flow.XRefLinked || x.Target.ID != first.TargetID || x.Action != flow.ActionCreated {
				t.Fatalf("cross-reference %+v, %v", x, err)
			}
			back, err := e.store.XRef(ctx, "t1", x.Target, first.Source)
			if err != nil || back.Target.ID != "C-9001" {
				t.Fatalf("reverse cross-reference %+v, %v", back, err)
			}
			second := e.change("C-9001", "+49 40 2")
			if second.Outcome != flow.OutcomeWritten || second.TargetAction != flow.ActionUpdated || second.TargetID != first.TargetID {
				t.Fatalf("second run %+v, want the same Account updated", second)
			}
			if ids := e.accounts("C-9001"); len(ids) != 1 {
				t.Fatalf("accounts of C-9001: %v, want one", ids)
			}
			if acc, _ := e.crm.Get("Account", first.TargetID); acc.Fields["Phone"] != "+49 40 2" {
				t.Fatalf("Account after the second change: %+v", acc)
			}
		})
	}
}

// TestConcurrentFirstChangesCreateOneAccount: first changes of one new customer arriving
// at once create one Account; the runs that lost the claim wait, and the redrive writes
// them to that same Account.
func TestConcurrentFirstChangesCreateOneAccount(t *testing.T) {
	for name, m := range matches {
		t.Run(name, func(t *testing.T) {
			e := newMatchEnv(t, m)
			const n = 6
			runs := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runs[i] = e.change("C-9002", "+49 40 "+string(rune('0'+i))).ID
				}()
			}
			wg.Wait()
			e.redriveAll()
			created, target := 0, ""
			for _, id := range runs {
				r := e.run(id)
				if r.Outcome != flow.OutcomeWritten || target != "" && r.TargetID != target {
					t.Fatalf("run %+v; want every run written to one Account", r)
				}
				target = r.TargetID
				if r.TargetAction == flow.ActionCreated {
					created++
				}
			}
			if ids := e.accounts("C-9002"); len(ids) != 1 || ids[0] != target || created != 1 {
				t.Fatalf("accounts %v, %d runs created; want one Account, created once", ids, created)
			}
		})
	}
}

// TestLostCreateAnswerIsFoundNotRepeated: the CRM makes the Account but the answer is
// lost; the redrive finds it by the match key and links it instead of creating another.
func TestLostCreateAnswerIsFoundNotRepeated(t *testing.T) {
	e := newMatchEnv(t, matches["lookup"])
	e.dropCreates = 1
	r := e.change("C-9003", "+49 40 3")
	if r.Outcome != flow.OutcomeRetrying {
		t.Fatalf("run %+v, want retrying", r)
	}
	e.redriveAll()
	r = e.run(r.ID)
	ids := e.accounts("C-9003")
	if r.Outcome != flow.OutcomeWritten || len(ids) != 1 || r.TargetID != ids[0] || r.TargetAction != flow.ActionCreated {
		t.Fatalf("run %+v, accounts %v; want the one Account linked as created", r, ids)
	}
}

// TestUnknownCreateWithoutKeyFails: a flow that matches by nothing cannot look for a
// create whose answer was lost; the run fails with a sync error, and the next change
// does not create a second record.
func TestUnknownCreateWithoutKeyFails(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	e.dropCreates = 1
	r := e.change("C-9004", "+49 40 4")
	e.redriveAll()
	if r = e.run(r.ID); r.Outcome != flow.OutcomeFailed || r.SyncErrorID == "" {
		t.Fatalf("run %+v, want failed with a sync error", r)
	}
	next := e.change("C-9004", "+49 40 5")
	e.redriveAll()
	if next = e.run(next.ID); next.Outcome != flow.OutcomeFailed || e.crm.WriteCount() != 1 {
		t.Fatalf("next run %+v, %d CRM writes; want it refused and one record", next, e.crm.WriteCount())
	}
}

// TestMatchSkipsWithoutCreate: lookup without create finds nothing and writes nothing;
// the claim is released, so a later run may match.
func TestMatchSkipsWithoutCreate(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchLookup, Field: "ERP_Customer_Id__c"})
	r := e.change("C-9005", "+1")
	if r.Outcome != flow.OutcomeSkipped || e.crm.WriteCount() != 0 {
		t.Fatalf("run %+v, want skipped", r)
	}
	e.crm.Seed("Account", "001EXISTING", map[string]any{"ERP_Customer_Id__c": "C-9005", "Name": "Old"})
	r = e.change("C-9005", "+2")
	if r.Outcome != flow.OutcomeWritten || r.TargetID != "001EXISTING" || r.TargetAction != flow.ActionMatched {
		t.Fatalf("run %+v, want the seeded Account matched", r)
	}
	if _, err := e.store.XRef(context.Background(), "t1", flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9005"},
		r.Target); err != nil {
		t.Fatal(errors.Join(errors.New("no link after the match"), err))
	}
}

// flakyLinks fails the first LinkXRef, as a store outage right after a create would.
type flakyLinks struct {
	flow.XRefStore
	mu     sync.Mutex
	failed bool
}

func (f *flakyLinks) LinkXRef(ctx context.Context, tenantID string, e flow.XRef) error {
	f.mu.Lock()
	fail := !f.failed
	f.failed = true
	f.mu.Unlock()
	if fail {
		return errors.New("link store down")
	}
	return f.XRefStore.LinkXRef(ctx, tenantID, e)
}

// TestCreatedButNotLinkedIsLinkedNext: the record was created but its link could not be
// stored; the run keeps the new id and links it on its next attempt, creating nothing
// more (match none, which has no key to look for it by, shows it is the kept id).
func TestCreatedButNotLinkedIsLinkedNext(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	e.x.XRefs = &flakyLinks{XRefStore: e.store}
	r := e.change("C-9006", "+1")
	if r.Outcome != flow.OutcomeRetrying {
		t.Fatalf("run %+v, want retrying", r)
	}
	e.redriveAll()
	if r = e.run(r.ID); r.Outcome != flow.OutcomeWritten || r.TargetAction != flow.ActionCreated || e.crm.WriteCount() != 1 {
		t.Fatalf("run %+v, %d CRM writes; want the one Account linked", r, e.crm.WriteCount())
	}
}

// TestClaimOfAnEndedRunIsTakenOver: a claim left by a run that is gone (it ended without
// releasing) does not block the record: the next run takes it over.
func TestClaimOfAnEndedRunIsTakenOver(t *testing.T) {
	e := newMatchEnv(t, matches["lookup"])
	src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9007"}
	if _, err := e.store.ClaimXRef(context.Background(), "t1", flow.XRef{Source: src, Target: flow.Ref{System: connector.SystemCRM,
		Entity: "Account"}, State: flow.XRefPending, Anchor: src.ID, ClaimedBy: "run_GONEGONEGONEGONEGONEGONEGO", CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	r := e.change("C-9007", "+1")
	if r.Outcome != flow.OutcomeWritten || r.TargetAction != flow.ActionCreated || len(e.accounts("C-9007")) != 1 {
		t.Fatalf("run %+v, want the claim taken over and the Account created", r)
	}
}

// countedXRefs counts the cross-reference calls, each one DynamoDB request on the flows
// table except LinkXRef (a read and two puts) and a lost ClaimXRef (a put and a read).
type countedXRefs struct {
	flow.XRefStore
	mu    sync.Mutex
	calls map[string]int
}

func (c *countedXRefs) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[op]++
}

func (c *countedXRefs) XRef(ctx context.Context, t string, src flow.Ref, target flow.Endpoint) (flow.XRef, error) {
	c.count("XRef")
	return c.XRefStore.XRef(ctx, t, src, target)
}

func (c *countedXRefs) ClaimXRef(ctx context.Context, t string, e flow.XRef) (flow.XRef, error) {
	c.count("ClaimXRef")
	return c.XRefStore.ClaimXRef(ctx, t, e)
}

func (c *countedXRefs) LinkXRef(ctx context.Context, t string, e flow.XRef) error {
	c.count("LinkXRef")
	return c.XRefStore.LinkXRef(ctx, t, e)
}

// BenchmarkMatchedFlow: a change of a customer already linked (the steady state) and the
// first change of a new one (claim, upsert, link), through the real guard into the fake
// CRM over HTTP, on the emulator. xref-calls/op is what the cross-reference adds.
func BenchmarkMatchedFlow(b *testing.B) {
	for _, first := range []bool{false, true} {
		name := map[bool]string{false: "linked", true: "first"}[first]
		b.Run(name, func(b *testing.B) {
			e := newMatchEnv(b, matches["externalId"])
			counted := &countedXRefs{XRefStore: e.store, calls: map[string]int{}}
			e.x.XRefs = counted
			if !first {
				e.change("C-1", "+0")
			}
			counted.calls = map[string]int{}
			b.ResetTimer()
			for i := range b.N {
				record := "C-1"
				if first {
					record = fmt.Sprintf("C-%d", 1000+i)
				}
				if r := e.change(record, fmt.Sprintf("+%d", i)); r.Outcome != flow.OutcomeWritten {
					b.Fatalf("run %+v", r)
				}
			}
			b.StopTimer()
			total := 0
			for _, n := range counted.calls {
				total += n
			}
			b.ReportMetric(float64(total)/float64(b.N), "xref-calls/op")
		})
	}
}
