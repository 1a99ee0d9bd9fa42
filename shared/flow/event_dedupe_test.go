package flow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

// An event whose first delivery ran flow F1 alone, redelivered after an admin switched F1
// off and F2 on, is a duplicate: the first delivery's run answers it and F2 writes nothing.
// Keyed by its flow, the lone run was not met by the redelivery's, and the event was
// written twice (issue 37).
func TestRedeliveryMatchingAnotherFlowIsADuplicate(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		flowOf := func(id string, on bool) flow.Flow {
			return flow.Flow{ID: id, Enabled: on, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
				Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
		}
		g := &scriptedGuard{results: []guardResult{{}}}
		x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0 }}
		ev := flow.Event{EventID: "e1", Entity: "Account", RecordID: "C-1", ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}
		var first []string
		for i, on := range []bool{true, false} {
			for _, f := range []flow.Flow{flowOf("f1", on), flowOf("f2", !on)} {
				if err := s.PutFlow(ctx, "t1", f); err != nil {
					t.Fatal(err)
				}
			}
			ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, ev)
			switch {
			case err != nil || len(ids) != 1:
				t.Fatalf("delivery %d: %v %v %v", i+1, ids, started, err)
			case i == 0 && !started:
				t.Fatalf("the first delivery was answered as a duplicate")
			case i == 0:
				first = ids
			case started || fmt.Sprint(ids) != fmt.Sprint(first):
				t.Fatalf("the redelivery, matching f2 only: %v started %v, want %v answered as a duplicate", ids, started, first)
			}
		}
		if len(g.writes) != 1 {
			t.Fatalf("%d writes for one event", len(g.writes))
		}
		if r, err := s.Run(ctx, "t1", first[0]); err != nil || r.FlowID != "f1" {
			t.Fatalf("the event's run %+v %v, want f1's", r, err)
		}
	})
}

// An event of three runs whose first delivery failed after storing the first run is not
// a duplicate when redelivered: the two runs never stored are put, and all three are
// written once, the one on record taken as the redrive would take it (it was never
// attempted), so neither it waits for its lease nor a later redrive writes it again.
// Before, the redelivery answered a duplicate of the run it found and the other two never
// ran.
func TestRedeliveryAfterAPartialFailureStartsTheRunsMissing(t *testing.T) {
	s, ctx := &flowtest.Store{}, context.Background()
	for _, id := range []string{"f1", "f2", "f3"} {
		f := flow.Flow{ID: id, Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
		if err := s.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}
	ev := flow.Event{EventID: "e1", Entity: "Account", RecordID: "C-1", ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}
	runID := func(f string) string { return flow.RunID("t1", connector.SystemCRM, "e1", f) }
	g := &scriptedGuard{results: []guardResult{{}}}
	now := t0
	x := &flow.Executor{Store: s.FailingPut(runID("f2")), Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return now }}
	if ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err == nil {
		t.Fatalf("the first delivery failed storing f2's run, yet answered %v started %v", ids, started)
	}
	x.Store = s
	ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, ev)
	if want := []string{runID("f1"), runID("f2"), runID("f3")}; err != nil || !started || fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("the redelivery: %v started %v %v; want %v started", ids, started, err, want)
	}
	written := func() []string {
		var keys []string
		for _, w := range g.writes {
			keys = append(keys, w.IdempotencyKey)
		}
		return keys
	}
	if got, want := fmt.Sprint(written()), fmt.Sprint([]string{runID("f1"), runID("f2"), runID("f3")}); got != want {
		t.Fatalf("writes %s; want %s", got, want)
	}
	for _, f := range []string{"f1", "f2", "f3"} {
		if r, err := s.Run(ctx, "t1", runID(f)); err != nil || r.Outcome != flow.OutcomeWritten {
			t.Fatalf("%s's run: %+v %v; want written", f, r, err)
		}
	}
	if ids, started, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err != nil || started || len(ids) != 3 {
		t.Fatalf("a third delivery: %v started %v %v", ids, started, err)
	}
	now = t0.Add(time.Hour)
	if n, err := x.Redrive(ctx, "t1"); err != nil || n != 0 || len(g.writes) != 3 {
		t.Fatalf("a redrive after the leases: %d attempted, %v, %d writes; want nothing more", n, err, len(g.writes))
	}
}
