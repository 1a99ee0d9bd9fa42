package flow_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func newStore(t testing.TB) *flow.DynamoStore { return newStoreOn(t, emutest.Pair) }

func newStoreOn(t testing.TB, e emutest.Emulator) *flow.DynamoStore {
	t.Helper()
	db, table := e.Tables(t)
	return flow.NewDynamoStore(db, table(blueprint.TableFlows))
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func run(tenant, event, flowID string, o flow.Outcome, at time.Time) flow.Run {
	r := flow.Run{ID: flow.RunID(tenant, connector.SystemCRM, event, flowID), TenantID: tenant, FlowID: flowID, EventID: event,
		System: connector.SystemCRM, Outcome: o, Attempts: 1, CreatedAt: at, UpdatedAt: at, ChangedAt: at,
		Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}}
	if o == flow.OutcomeRetrying {
		next := at.Add(time.Minute)
		r.NextAttemptAt, r.Pending = &next, &flow.Pending{Fields: map[string]any{"phone": "+1"}, Link: map[string]any{"x": "+1"},
			Traces: map[string]governance.Trace{"phone": {Replaced: true, Hops: []governance.Hop{
				{System: connector.SystemCRM, Entity: "Account", Record: "C-1", Field: "Phone"}}}}}
	}
	return r
}

func TestStoreStartsRunsOnceAndAnswersTheFirstIDs(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		first := []flow.Run{run("t1", "e1", "a", flow.OutcomeRetrying, t0), run("t1", "e1", "b", flow.OutcomeSkipped, t0)}
		st, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e1", first)
		ids := st.IDs
		if err != nil || !st.New || len(ids) != 2 {
			t.Fatalf("first: %+v %v", st, err)
		}
		// A redelivery after a flow was added still answers the first runs and stores nothing.
		again, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e1", []flow.Run{sole(run("t1", "e1", "c", flow.OutcomeSkipped, t0))})
		if err != nil || again.New || fmt.Sprint(again.IDs) != fmt.Sprint(ids) {
			t.Fatalf("redelivery: %+v %v", again, err)
		}
		if _, err := s.Run(ctx, "t1", flow.RunID("t1", connector.SystemCRM, "e1", "c")); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("the redelivery's run was stored: %v", err)
		}
		// The same event id from another system or tenant is another event.
		if st, _ := s.StartRuns(ctx, "t1", connector.SystemHostERP, "e1", nil); !st.New {
			t.Fatal("another system's event id was taken for a redelivery")
		}
		got, err := s.Run(ctx, "t1", ids[0])
		// A retry writes with the traces read when the run started.
		if err != nil || got.Pending == nil || got.Pending.Fields["phone"] != "+1" || got.TenantID != "t1" || got.System != connector.SystemCRM ||
			!reflect.DeepEqual(got.Pending.Traces, first[0].Pending.Traces) {
			t.Fatalf("stored run %+v err %v", got, err)
		}
		if _, err := s.Run(ctx, "t2", ids[0]); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("another tenant read the run: %v", err)
		}
	})
}

func TestStoreSaveRunIsConditional(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		r := sole(run("t1", "e1", "a", flow.OutcomeRetrying, t0))
		if _, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e1", []flow.Run{r}); err != nil {
			t.Fatal(err)
		}
		taken := r
		taken.Attempts = 2
		if err := s.SaveRun(ctx, taken, 1); err != nil {
			t.Fatalf("take over: %v", err)
		}
		// The first attempt's outcome arrives late: the run is no longer its own.
		done := r
		done.Outcome, done.Pending, done.NextAttemptAt = flow.OutcomeWritten, nil, nil
		if err := s.SaveRun(ctx, done, 1); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("stale save: %v, want ErrTaken", err)
		}
		done.Attempts = 2
		if err := s.SaveRun(ctx, done, 2); err != nil {
			t.Fatal(err)
		}
		// An ended run never changes again.
		if err := s.SaveRun(ctx, taken, 2); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("save over an ended run: %v, want ErrTaken", err)
		}
		got, _ := s.Run(ctx, "t1", r.ID)
		if got.Outcome != flow.OutcomeWritten || got.Pending != nil {
			t.Fatalf("run %+v", got)
		}
	})
}

func TestStoreListsRunsNewestFirstWithFiltersAndDueRuns(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		var runs []flow.Run
		for i := range 7 {
			o := flow.OutcomeWritten
			if i%3 == 0 {
				o = flow.OutcomeRetrying
			}
			runs = append(runs, run("t1", fmt.Sprintf("e%d", i), []string{"a", "b"}[i%2], o, t0.Add(time.Duration(i)*time.Second)))
		}
		if _, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "batch", runs); err != nil {
			t.Fatal(err)
		}
		var seen []string
		cursor := ""
		for {
			page, next, err := s.Runs(ctx, "t1", flow.RunQuery{Limit: 3, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				seen = append(seen, r.EventID)
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if fmt.Sprint(seen) != "[e6 e5 e4 e3 e2 e1 e0]" {
			t.Fatalf("pages %v", seen)
		}
		page, _, err := s.Runs(ctx, "t1", flow.RunQuery{FlowID: "a", Outcome: flow.OutcomeRetrying, Limit: 10})
		if err != nil || len(page) != 2 || page[0].EventID != "e6" || page[1].EventID != "e0" {
			t.Fatalf("filtered %v %v", page, err)
		}
		if _, _, err := s.Runs(ctx, "t1", flow.RunQuery{Limit: 3, Cursor: "bm9wZQ"}); !errors.Is(err, flow.ErrBadCursor) {
			t.Fatalf("bad cursor: %v", err)
		}
		due, err := s.DueRuns(ctx, "t1", t0.Add(64*time.Second), 10)
		if err != nil || len(due) != 2 || due[0].EventID != "e0" || due[1].EventID != "e3" {
			t.Fatalf("due %v %v: the retrying runs due by then, oldest first", due, err)
		}
		if due, _ := s.DueRuns(ctx, "t2", t0.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("another tenant's due runs: %v", due)
		}
	})
}

func TestStoreFlows(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		f := flow.Flow{ID: "f1", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"a": "b"}, UpdatedAt: t0}
		if err := s.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
		if all, err := s.Flows(ctx, "t1"); err != nil || len(all) != 1 || all[0].Mapping["a"] != "b" {
			t.Fatalf("flows %v %v", all, err)
		}
		if all, _ := s.Flows(ctx, "t2"); len(all) != 0 {
			t.Fatalf("another tenant's flows: %v", all)
		}
		if err := s.DeleteFlow(ctx, "t1", "f1"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteFlow(ctx, "t1", "f1"); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if _, err := s.Flow(ctx, "t1", "f1"); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("deleted flow: %v", err)
		}
	})
}
