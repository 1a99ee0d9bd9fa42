package flow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// trails answers one record's trail, or fails.
type trails struct {
	trail map[string]governance.FieldTrail
	err   error
	since time.Time
	reads int
}

func (t *trails) Trail(_ context.Context, _ string, _ connector.System, _, _ string, since time.Time) (map[string]governance.FieldTrail, error) {
	t.reads++
	t.since = since
	return t.trail, t.err
}

// The executor reads the trail of the reported record and gives each value its trace: a
// value equal to what a flow wrote there carries that write's hops on, a different one
// starts afresh and says it replaced the flow's, one the trail does not know starts afresh.
func TestExecutorCarriesEachValuesTrace(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target:  flow.Endpoint{System: connector.SystemMarketing, Entity: "L1"},
		Mapping: map[string]string{"PHONE": "Phone", "EMAIL": "Email", "NAME": "Name"}}
	if err := s.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	here := func(field string) governance.Hop {
		return governance.Hop{System: connector.SystemCRM, Entity: "Account", Record: "C-1", Field: field}
	}
	origin := governance.Hop{System: connector.SystemHostERP, Entity: "customer", Record: "C-1", Field: "phone"}
	phone, _ := governance.ValueHash("+1")
	tr := &trails{trail: map[string]governance.FieldTrail{
		"Phone": {Hash: phone, Hops: []governance.Hop{origin, here("Phone")}},
		"Email": {Hash: "an-older-value", Hops: []governance.Hop{origin, here("Email")}},
	}}
	g := &scriptedGuard{results: []guardResult{{}}}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0 }, Trails: tr}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1", "Email": "new@example.com", "Name": "Acme"}}); err != nil {
		t.Fatal(err)
	}
	if tr.reads != 1 || !tr.since.Equal(t0.Add(-flow.DefaultTrailWindow)) {
		t.Fatalf("%d trail reads since %s", tr.reads, tr.since)
	}
	l := g.writes[0].Link
	if l == nil || l.Key != "" {
		t.Fatalf("link %+v, want traces without a pair key (no flow back)", l)
	}
	if got := l.Traces["PHONE"]; len(got.Hops) != 2 || got.Hops[0] != origin || got.Replaced {
		t.Fatalf("PHONE trace %+v, want the echo's hops", got)
	}
	if got := l.Traces["EMAIL"]; len(got.Hops) != 1 || got.Hops[0] != here("Email") || !got.Replaced {
		t.Fatalf("EMAIL trace %+v, want a local change that replaced the flow's value", got)
	}
	if got := l.Traces["NAME"]; len(got.Hops) != 1 || got.Hops[0] != here("Name") || got.Replaced {
		t.Fatalf("NAME trace %+v", got)
	}
}

// Without the trail the executor cannot tell an echo from a change: the event fails and
// starts nothing, and is retried by its source (or the next poll).
func TestExecutorStartsNothingWhenTheTrailCannotBeRead(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
	if err := s.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	g := &scriptedGuard{results: []guardResult{{}}}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0 },
		Trails: &trails{err: errors.New("throttled")}}
	ev := flow.Event{EventID: "e", Entity: "Account", RecordID: "C-1", ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err == nil || len(g.writes) != 0 {
		t.Fatalf("err %v, %d writes; want the event refused before any write", err, len(g.writes))
	}
	x.Trails = &trails{}
	if ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err != nil || !started || len(ids) != 1 {
		t.Fatalf("redelivered: %v %v %v, want it started", ids, started, err)
	}
	// An event no flow runs for reads no trail.
	tr := &trails{}
	x.Trails = tr
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e2", Entity: "Lead", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}); err != nil || tr.reads != 0 {
		t.Fatalf("err %v, %d trail reads", err, tr.reads)
	}
}

// clockGuard is a guard whose writes take a while: each moves the clock on by took.
type clockGuard struct {
	scriptedGuard
	now  *time.Time
	took time.Duration
}

func (g *clockGuard) Write(ctx context.Context, id identity.Identity, req governance.WriteRequest) (governance.Result, error) {
	*g.now = g.now.Add(g.took)
	return g.scriptedGuard.Write(ctx, id, req)
}

// The loop check of an event's first writes reuses the executor's read of the source
// record's trail (governance.Link.Read), but not after an earlier run's slow write: then
// the guard reads the ledger as it stands.
func TestFirstWritesReuseTheTrailReadWhileItIsFresh(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	for _, id := range []string{"a", "b"} {
		f := flow.Flow{ID: id, Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Mapping: map[string]string{"Phone": "phone"}}
		if err := s.PutFlow(ctx, "t-reuse", f); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		took  time.Duration
		reads []bool
	}{{time.Millisecond, []bool{true, true}}, {flow.TrailReuse + time.Second, []bool{true, false}}} {
		now := t0
		g := &clockGuard{scriptedGuard: scriptedGuard{results: []guardResult{{}}}, now: &now, took: c.took}
		x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return now },
			Trails: governance.Trails{Ledger: &governancetest.Ledger{}}}
		ev := flow.Event{EventID: "e-" + c.took.String(), Entity: "customer", RecordID: "C-1", ChangedAt: t0, Fields: map[string]any{"phone": "+1"}}
		if _, _, err := x.Handle(ctx, "t-reuse", connector.SystemHostERP, ev); err != nil {
			t.Fatal(err)
		}
		if len(g.writes) != len(c.reads) {
			t.Fatalf("writes took %s: %d writes, want %d", c.took, len(g.writes), len(c.reads))
		}
		for i, w := range g.writes {
			if got := w.Link != nil && w.Link.Read != nil; got != c.reads[i] {
				t.Errorf("writes took %s: write %d carries the trail read: %v, want %v", c.took, i, got, c.reads[i])
			}
		}
	}
}
