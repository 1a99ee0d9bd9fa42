package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

// TestResumedRunIsTakenUnderALeaseFromItsTake: a redelivery resumes the runs a failed
// delivery stored, one after the other. A run resumed after an earlier one's slow write
// is taken under a lease counted from when it is taken, not from when the event arrived:
// counted from then, its lease had run out as it was taken, and a redrive meanwhile took
// it again and wrote it a second time (for a create, a second record).
func TestResumedRunIsTakenUnderALeaseFromItsTake(t *testing.T) {
	s, ctx := &flowtest.Store{}, context.Background()
	for _, id := range []string{"f1", "f2"} {
		f := flow.Flow{ID: id, Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
		if err := s.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}
	ev := flow.Event{EventID: "e1", Entity: "Account", RecordID: "C-1", ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}
	g := &scriptedGuard{results: []guardResult{{}}}
	now := t0
	x := &flow.Executor{Store: s.FailingPut(flow.EventRunID("t1", connector.SystemCRM, "e1")), Guard: g, SyncErrors: &reporter{},
		Now: func() time.Time { return now }}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err == nil {
		t.Fatal("the first delivery failed storing the event, yet answered")
	}
	x.Store = s
	x.Guard = &hookGuard{Guard: g, hook: func(n int) {
		switch n {
		case 1: // f1's write is slow: f2's lease, counted from the event, runs out
			now = now.Add(flow.DefaultLease + time.Second)
		case 2: // the redrive runs while f2 is written
			if _, err := x.Redrive(ctx, "t1"); err != nil {
				t.Error(err)
			}
		}
	}}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, ev); err != nil {
		t.Fatal(err)
	}
	f2, n := flow.RunID("t1", connector.SystemCRM, "e1", "f2"), 0
	for _, w := range g.writes {
		if w.IdempotencyKey == f2 {
			n++
		}
	}
	if r, err := s.Run(ctx, "t1", f2); err != nil || r.Outcome != flow.OutcomeWritten || n != 1 {
		t.Fatalf("f2's run %+v (%v), written %d times; want written once", r, err, n)
	}
}
