package flow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// scriptedGuard answers each write with the next of its results.
type scriptedGuard struct {
	results []guardResult
	writes  []governance.WriteRequest
}

type guardResult struct {
	res governance.Result
	err error
}

func (g *scriptedGuard) Write(_ context.Context, _ identity.Identity, req governance.WriteRequest) (governance.Result, error) {
	g.writes = append(g.writes, req)
	r := g.results[0]
	if len(g.results) > 1 {
		g.results = g.results[1:]
	}
	return r.res, r.err
}

type reporter struct {
	err     error
	reports int
}

func (r *reporter) Report(_ context.Context, run flow.Run, _ string) (string, error) {
	r.reports++
	return "se_" + run.ID, r.err
}

func connErr(sentinel error) error { return fmt.Errorf("governance: write x: %w", sentinel) }

func TestExecutorOutcomes(t *testing.T) {
	held := &governance.PendingApproval{ID: "ga_1"}
	cases := []struct {
		name    string
		result  guardResult
		report  error
		want    flow.Outcome
		reports int
	}{
		{"written", guardResult{}, nil, flow.OutcomeWritten, 0},
		{"written but not recorded", guardResult{err: governance.ErrNotRecorded}, nil, flow.OutcomeWritten, 0},
		{"every field dropped", guardResult{res: governance.Result{Dropped: []string{"phone"}}}, nil, flow.OutcomeSkipped, 0},
		{"ownership", guardResult{err: governance.ErrOwnershipRejected}, nil, flow.OutcomeRejected, 0},
		{"denied hold", guardResult{err: governance.ErrApprovalDenied}, nil, flow.OutcomeRejected, 0},
		{"held", guardResult{res: governance.Result{Held: held}, err: governance.ErrPendingApproval}, nil, flow.OutcomeHeld, 0},
		{"loop", guardResult{err: governance.ErrLoopDetected}, nil, flow.OutcomeLoopBroken, 0},
		{"validation", guardResult{err: connErr(connector.ErrValidation)}, nil, flow.OutcomeFailed, 1},
		{"DLP", guardResult{err: governance.ErrDLPBlocked}, nil, flow.OutcomeFailed, 1},
		{"validation, sync error not stored", guardResult{err: connErr(connector.ErrValidation)}, errors.New("down"), flow.OutcomeRetrying, 1},
		{"unavailable", guardResult{err: connErr(connector.ErrUnavailable)}, nil, flow.OutcomeRetrying, 0},
		{"guard check unavailable", guardResult{err: governance.ErrUnavailable}, nil, flow.OutcomeRetrying, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ctx := newStore(t), context.Background()
			f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
				Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
			back := flow.Flow{ID: "back", Enabled: true, Source: f.Target, Target: f.Source, Mapping: map[string]string{"Phone": "phone"}}
			for _, fl := range []flow.Flow{f, back} {
				if err := s.PutFlow(ctx, "t1", fl); err != nil {
					t.Fatal(err)
				}
			}
			g, rep := &scriptedGuard{results: []guardResult{c.result}}, &reporter{err: c.report}
			x := &flow.Executor{Store: s, Guard: g, SyncErrors: rep, Now: func() time.Time { return t0 }}
			ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1",
				ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}})
			if err != nil || !started || len(ids) != 1 {
				t.Fatalf("handle: %v %v %v", ids, started, err)
			}
			r, err := s.Run(ctx, "t1", ids[0])
			if err != nil || r.Outcome != c.want || rep.reports != c.reports {
				t.Fatalf("run %+v (%d reports) err %v, want %s", r, rep.reports, err, c.want)
			}
			if watched := r.Outcome == flow.OutcomeRetrying || r.Outcome == flow.OutcomeHeld; watched != (r.Pending != nil && r.NextAttemptAt != nil) {
				t.Fatalf("run %+v: only a retrying or held run keeps its pending write", r)
			}
			if c.want == flow.OutcomeHeld && r.ApprovalID != "ga_1" || c.want == flow.OutcomeFailed && r.SyncErrorID == "" {
				t.Fatalf("run %+v", r)
			}
			w := g.writes[0]
			if w.IdempotencyKey != r.ID || !w.ReleaseByRetry || w.Source != connector.SystemCRM || w.Target != connector.SystemHostERP ||
				w.Link == nil || w.Link.Fields["crm/Phone|hosterp/phone"] != "+1" ||
				w.Entity != "customer" || w.RecordID != "C-1" || w.Fields["phone"] != "+1" {
				t.Fatalf("guarded write %+v", w)
			}
		})
	}
}

// A run that keeps failing transiently is retried on the backoff and then fails for
// good, as a sync error; a redrive that finds it taken leaves it.
func TestExecutorRetriesThenFails(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
	if err := s.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	now := t0
	g, rep := &scriptedGuard{results: []guardResult{{err: connErr(connector.ErrRateLimited)}}}, &reporter{}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: rep, Now: func() time.Time { return now },
		Backoff: []time.Duration{time.Minute, 2 * time.Minute}}
	ids, _, _ := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}})
	if n, _ := x.Redrive(ctx, "t1"); n != 0 {
		t.Fatalf("redrive before the backoff attempted %d", n)
	}
	for i, want := range []flow.Outcome{flow.OutcomeRetrying, flow.OutcomeFailed} {
		now = now.Add(2*time.Minute + time.Second)
		if n, err := x.Redrive(ctx, "t1"); n != 1 || err != nil {
			t.Fatalf("redrive %d: %d %v", i, n, err)
		}
		r, _ := s.Run(ctx, "t1", ids[0])
		if r.Outcome != want || r.Attempts != i+2 {
			t.Fatalf("after redrive %d: %+v, want %s", i, r, want)
		}
	}
	if len(g.writes) != 3 || rep.reports != 1 {
		t.Fatalf("%d writes, %d sync errors; want 3 attempts and one sync error", len(g.writes), rep.reports)
	}
	for _, w := range g.writes {
		if w.IdempotencyKey != ids[0] {
			t.Fatal("an attempt changed the idempotency key")
		}
	}
}

type others struct{ tenants []string }

func (o *others) RunDue(_ context.Context, tenantID string) (int, error) {
	o.tenants = append(o.tenants, tenantID)
	return 2, nil
}

// A run's write that lands reports its target healthy (the sync-error retries waiting on
// it are pulled forward); one that fails does not. The redrive runs the other due
// deliveries (the sync-error retries) on its own schedule.
func TestExecutorReportsWritesAndRunsOtherRedrives(t *testing.T) {
	for _, c := range []struct {
		name   string
		result guardResult
		heard  int
	}{{"written", guardResult{}, 1}, {"unavailable", guardResult{err: connErr(connector.ErrUnavailable)}, 0}} {
		t.Run(c.name, func(t *testing.T) {
			s, ctx := newStore(t), context.Background()
			f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
				Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
			if err := s.PutFlow(ctx, "t1", f); err != nil {
				t.Fatal(err)
			}
			var heard []connector.System
			o := &others{}
			x := &flow.Executor{Store: s, Guard: &scriptedGuard{results: []guardResult{c.result}}, SyncErrors: &reporter{},
				Now: func() time.Time { return t0 }, Others: o,
				Written: func(_ context.Context, tenantID string, sys connector.System) { heard = append(heard, sys) }}
			if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1",
				ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}); err != nil {
				t.Fatal(err)
			}
			if len(heard) != c.heard || c.heard == 1 && heard[0] != connector.SystemHostERP {
				t.Fatalf("heard %v", heard)
			}
			if n, err := x.Redrive(ctx, "t1"); n != 2 || err != nil || len(o.tenants) != 1 {
				t.Fatalf("redrive %d %v, others ran for %v", n, err, o.tenants)
			}
		})
	}
}

// A write the account's rate budget has no room for waits exactly as long as the budget
// says, and is never failed for waiting, whatever its attempts (issue 34).
func TestExecutorDefersARateLimitedRunUntilItsBudget(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target: flow.Endpoint{System: connector.SystemShipping, Entity: "orders"}, Mapping: map[string]string{"phone": "Phone"}}
	if err := s.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	now := t0
	noBudget := &connector.Error{System: connector.SystemShipping, Op: connector.OpWrite, Err: connector.ErrRateLimited,
		Retryable: true, RetryAfter: 37 * time.Second}
	g, rep := &scriptedGuard{results: []guardResult{{err: fmt.Errorf("governance: write x: %w", noBudget)}}}, &reporter{}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: rep, Now: func() time.Time { return now },
		Backoff: []time.Duration{time.Minute}}
	ids, _, _ := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}})
	for i := range 4 {
		r, _ := s.Run(ctx, "t1", ids[0])
		if r.Outcome != flow.OutcomeRetrying || r.NextAttemptAt == nil || !r.NextAttemptAt.Equal(now.Add(37*time.Second)) {
			t.Fatalf("after attempt %d: %+v, want retrying at +37s", i+1, r)
		}
		now = now.Add(37 * time.Second)
		if n, err := x.Redrive(ctx, "t1"); n != 1 || err != nil {
			t.Fatalf("redrive %d: %d %v", i, n, err)
		}
	}
	if rep.reports != 0 {
		t.Fatal("a run waiting for its rate budget was failed as a sync error")
	}
}
