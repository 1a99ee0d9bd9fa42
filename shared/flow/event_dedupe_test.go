package flow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
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
