package flowtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

// StoreHarness is a flow.Store under StoreContract: Store is empty, Twice is the same data
// with every put StartRuns makes sent twice (the SDK's resend after a lost answer),
// FailingPut the same data with the put of one run failing, and Reads counts the reads
// Store has made so far.
type StoreHarness struct {
	Store      flow.Store
	Twice      flow.Store
	FailingPut func(runID string) flow.Store
	Reads      func() int
}

// StoreContract is the behaviour every flow.Store shares about an event's runs: one key
// per event (flow.EventRunID) that a redelivery meets whichever flows match it now, a
// lone run stored at it without a read first, markers of events of no run or several
// that no listing shows. Run it against the in-memory fake and the DynamoDB store.
func StoreContract(t *testing.T, newStore func(t *testing.T) StoreHarness) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const crm = connector.SystemCRM
	own := func(tenant, event string) string { return flow.EventRunID(tenant, crm, event) }
	mk := func(tenant, event, flowID string, o flow.Outcome, at time.Time) flow.Run {
		r := flow.Run{ID: flow.RunID(tenant, crm, event, flowID), TenantID: tenant, FlowID: flowID, EventID: event,
			System: crm, Outcome: o, Attempts: 1, CreatedAt: at, UpdatedAt: at, ChangedAt: at, RecordID: "C-1",
			Source: flow.Endpoint{System: crm, Entity: "Account"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}}
		if o == flow.OutcomeRetrying {
			next := at.Add(time.Minute)
			r.NextAttemptAt, r.Pending = &next, &flow.Pending{Fields: map[string]any{"phone": "+1"}, Link: map[string]any{"x": "+1"},
				Traces: map[string]governance.Trace{"phone": {Replaced: true, Hops: []governance.Hop{
					{System: crm, Entity: "Account", Record: "C-1", Field: "Phone"}}}}}
		}
		return r
	}
	sole := func(r flow.Run) []flow.Run {
		runs := []flow.Run{r}
		flow.SoleRun(r.TenantID, r.System, r.EventID, runs)
		return runs
	}
	start := func(t *testing.T, s flow.Store, tenant, event string, runs []flow.Run) ([]string, bool) {
		t.Helper()
		st, err := s.StartRuns(ctx, tenant, crm, event, runs)
		if err != nil {
			t.Fatalf("start %s with %d runs: %v", event, len(runs), err)
		}
		if len(st.OnRecord) > 0 {
			t.Fatalf("start %s: runs %v on record already", event, st.OnRecord)
		}
		return st.IDs, st.New
	}
	// redelivered wants runs answered with want as a duplicate.
	redelivered := func(t *testing.T, s flow.Store, event string, runs []flow.Run, want []string) {
		t.Helper()
		if ids, started := start(t, s, "t1", event, runs); started || fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("a redelivery of %s with %d runs: %v started %v, want %v as a duplicate", event, len(runs), ids, started, want)
		}
	}
	absent := func(t *testing.T, s flow.Store, id string) {
		t.Helper()
		if r, err := s.Run(ctx, "t1", id); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("Run(%s) = %+v, %v; want ErrNotFound", id, r, err)
		}
	}
	several := func(event string, flows ...string) []flow.Run {
		var runs []flow.Run
		for _, f := range flows {
			runs = append(runs, mk("t1", event, f, flow.OutcomeRetrying, t0))
		}
		return runs
	}

	t.Run("a lone run's put is the event's dedupe, nothing read", func(t *testing.T) {
		h := newStore(t)
		a := sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0))
		before := h.Reads()
		if ids, started := start(t, h.Store, "t1", "e1", a); !started || fmt.Sprint(ids) != fmt.Sprint([]string{own("t1", "e1")}) {
			t.Fatalf("first delivery: %v started %v, want the event's id", ids, started)
		}
		if n := h.Reads() - before; n != 0 {
			t.Fatalf("the first delivery of a one-run event read %d times", n)
		}
		got, err := h.Store.Run(ctx, "t1", own("t1", "e1"))
		if err != nil || got.FlowID != "a" || got.TenantID != "t1" || got.System != crm || got.Pending == nil ||
			got.Pending.Fields["phone"] != "+1" || !reflect.DeepEqual(got.Pending.Traces, a[0].Pending.Traces) {
			t.Fatalf("the lone run read back: %+v %v", got, err)
		}
		before = h.Reads()
		redelivered(t, h.Store, "e1", a, []string{own("t1", "e1")})
		// One read tells the refusal from the SDK's resend and answers the redelivery.
		if n := h.Reads() - before; n != 1 {
			t.Fatalf("a redelivery of a one-run event read %d times, want 1", n)
		}
	})

	t.Run("a lone run, then another flow's lone run: a duplicate", func(t *testing.T) {
		h := newStore(t)
		start(t, h.Store, "t1", "e1", sole(mk("t1", "e1", "f1", flow.OutcomeRetrying, t0)))
		redelivered(t, h.Store, "e1", sole(mk("t1", "e1", "f2", flow.OutcomeSkipped, t0)), []string{own("t1", "e1")})
		if r, err := h.Store.Run(ctx, "t1", own("t1", "e1")); err != nil || r.FlowID != "f1" || r.Outcome != flow.OutcomeRetrying {
			t.Fatalf("the event's run %+v %v, want f1's as first stored", r, err)
		}
	})

	t.Run("no run, then one: a duplicate of none", func(t *testing.T) {
		h := newStore(t)
		if ids, started := start(t, h.Store, "t1", "e1", nil); !started || len(ids) != 0 {
			t.Fatalf("no run: %v started %v", ids, started)
		}
		absent(t, h.Store, own("t1", "e1"))
		redelivered(t, h.Store, "e1", sole(mk("t1", "e1", "b", flow.OutcomeRetrying, t0)), []string{})
		absent(t, h.Store, own("t1", "e1"))
		redelivered(t, h.Store, "e1", nil, []string{})
	})

	t.Run("several runs, then one: a duplicate of the several", func(t *testing.T) {
		h := newStore(t)
		first := several("e1", "a", "b")
		ids, started := start(t, h.Store, "t1", "e1", first)
		if want := []string{first[0].ID, first[1].ID}; !started || fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("first: %v started %v, want %v", ids, started, want)
		}
		redelivered(t, h.Store, "e1", sole(mk("t1", "e1", "c", flow.OutcomeRetrying, t0)), ids)
		absent(t, h.Store, own("t1", "e1")) // the marker is no run
		redelivered(t, h.Store, "e1", several("e1", "a", "b", "c"), ids)
		absent(t, h.Store, flow.RunID("t1", crm, "e1", "c"))
		if r, err := h.Store.Run(ctx, "t1", ids[1]); err != nil || r.FlowID != "b" {
			t.Fatalf("run b: %+v %v", r, err)
		}
	})

	t.Run("a delivery failing part way: its redelivery puts the rest, leaves the runs on record to the redrive", func(t *testing.T) {
		h := newStore(t)
		runs := several("e1", "a", "b", "c")
		if st, err := h.FailingPut(runs[1].ID).StartRuns(ctx, "t1", crm, "e1", runs); err == nil {
			t.Fatalf("the put of run b failed, yet the event was answered %+v", st)
		}
		if r, err := h.Store.Run(ctx, "t1", runs[0].ID); err != nil || r.Outcome != flow.OutcomeRetrying {
			t.Fatalf("run a, put before the failure: %+v %v", r, err)
		}
		absent(t, h.Store, runs[1].ID)
		absent(t, h.Store, runs[2].ID)
		st, err := h.Store.StartRuns(ctx, "t1", crm, "e1", runs)
		want := []string{runs[0].ID, runs[1].ID, runs[2].ID}
		if err != nil || !st.New || fmt.Sprint(st.IDs) != fmt.Sprint(want) || fmt.Sprint(st.OnRecord) != fmt.Sprint(want[:1]) {
			t.Fatalf("the redelivery: %+v %v; want a new event of %v with run a on record", st, err, want)
		}
		for _, id := range want[1:] {
			if r, err := h.Store.Run(ctx, "t1", id); err != nil || r.Outcome != flow.OutcomeRetrying {
				t.Fatalf("run %s after the redelivery: %+v %v", id, r, err)
			}
		}
		redelivered(t, h.Store, "e1", runs, want)
	})

	t.Run("a delivery failing at the marker: its redelivery stores the event, every run on record", func(t *testing.T) {
		h := newStore(t)
		runs := several("e1", "a", "b")
		if _, err := h.FailingPut(own("t1", "e1")).StartRuns(ctx, "t1", crm, "e1", runs); err == nil {
			t.Fatal("the marker's put failed, yet the event was answered")
		}
		want := []string{runs[0].ID, runs[1].ID}
		st, err := h.Store.StartRuns(ctx, "t1", crm, "e1", runs)
		if err != nil || !st.New || fmt.Sprint(st.IDs) != fmt.Sprint(want) || fmt.Sprint(st.OnRecord) != fmt.Sprint(want) {
			t.Fatalf("the redelivery: %+v %v; want a new event of %v, both on record", st, err, want)
		}
		redelivered(t, h.Store, "e1", runs, want)
	})

	t.Run("a lone run, then several: a duplicate of the lone run", func(t *testing.T) {
		h := newStore(t)
		start(t, h.Store, "t1", "e1", sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0)))
		redelivered(t, h.Store, "e1", several("e1", "a", "b"), []string{own("t1", "e1")})
		redelivered(t, h.Store, "e1", nil, []string{own("t1", "e1")})
		absent(t, h.Store, flow.RunID("t1", crm, "e1", "a"))
		absent(t, h.Store, flow.RunID("t1", crm, "e1", "b"))
	})

	t.Run("a put the SDK sent twice started its event", func(t *testing.T) {
		h := newStore(t)
		for _, c := range []struct {
			event string
			runs  []flow.Run
		}{{"e1", sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0))}, {"e2", several("e2", "a", "b")}, {"e3", nil}} {
			if _, started := start(t, h.Twice, "t1", c.event, c.runs); !started {
				t.Fatalf("%d runs, each put sent twice: answered as a duplicate of itself", len(c.runs))
			}
			if _, started := start(t, h.Twice, "t1", c.event, c.runs); started {
				t.Fatalf("a second delivery of %d runs started", len(c.runs))
			}
		}
	})

	t.Run("the same event id of another system or tenant is another event", func(t *testing.T) {
		h := newStore(t)
		start(t, h.Store, "t1", "e1", sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0)))
		other := mk("t1", "e1", "a", flow.OutcomeRetrying, t0)
		other.ID = flow.EventRunID("t1", connector.SystemHostERP, "e1")
		if st, err := h.Store.StartRuns(ctx, "t1", connector.SystemHostERP, "e1", []flow.Run{other}); err != nil || !st.New {
			t.Fatalf("another system's event: %+v, %v", st, err)
		}
		if _, started := start(t, h.Store, "t2", "e1", sole(mk("t2", "e1", "a", flow.OutcomeRetrying, t0))); !started {
			t.Fatal("another tenant's event was taken for a redelivery")
		}
		if _, err := h.Store.Run(ctx, "t2", own("t1", "e1")); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("another tenant read the run: %v", err)
		}
	})

	t.Run("runs not keyed by their event are refused", func(t *testing.T) {
		h := newStore(t)
		for _, runs := range [][]flow.Run{{mk("t1", "e1", "a", flow.OutcomeRetrying, t0)},
			append(several("e1", "a"), sole(mk("t1", "e1", "b", flow.OutcomeRetrying, t0))...)} {
			if _, err := h.Store.StartRuns(ctx, "t1", crm, "e1", runs); err == nil {
				t.Fatalf("runs %s, %s stored", runs[0].ID, runs[len(runs)-1].ID)
			}
		}
	})

	t.Run("listings show runs of every shape and never a marker", func(t *testing.T) {
		h := newStore(t)
		lone := sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0))
		pair := []flow.Run{mk("t1", "e3", "a", flow.OutcomeRetrying, t0.Add(2*time.Second)), mk("t1", "e3", "b", flow.OutcomeSkipped, t0.Add(3*time.Second))}
		start(t, h.Store, "t1", "e1", lone)
		start(t, h.Store, "t1", "e2", nil)
		start(t, h.Store, "t1", "e3", pair)
		start(t, h.Store, "t1", "e4", nil)
		redelivered(t, h.Store, "e4", sole(mk("t1", "e4", "a", flow.OutcomeRetrying, t0.Add(4*time.Second))), []string{})
		var seen []string
		cursor := ""
		for range 5 {
			page, next, err := h.Store.Runs(ctx, "t1", flow.RunQuery{Limit: 1, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				seen = append(seen, r.ID)
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		if want := []string{pair[1].ID, pair[0].ID, lone[0].ID}; fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("pages of one: %v, want %v, newest first", seen, want)
		}
		if page, _, err := h.Store.Runs(ctx, "t1", flow.RunQuery{Outcome: flow.OutcomeRetrying, Limit: 10}); err != nil ||
			len(page) != 2 || page[0].ID != pair[0].ID || page[1].ID != lone[0].ID {
			t.Fatalf("retrying runs: %v %v", page, err)
		}
		if page, _, err := h.Store.Runs(ctx, "t1", flow.RunQuery{FlowID: "b", Limit: 10}); err != nil || len(page) != 1 || page[0].ID != pair[1].ID {
			t.Fatalf("flow b's runs: %v %v", page, err)
		}
		due, err := h.Store.DueRuns(ctx, "t1", t0.Add(time.Hour), 10)
		if err != nil || len(due) != 2 || due[0].ID != lone[0].ID || due[1].ID != pair[0].ID {
			t.Fatalf("due %v %v: the retrying runs, oldest due first", due, err)
		}
		if due, _ := h.Store.DueRuns(ctx, "t1", t0, 10); len(due) != 0 {
			t.Fatalf("due before their time: %v", due)
		}
	})

	// A held run waits on its approval (flow's held.go): due for its next check, and saved
	// again (checked, or ended) as a retrying run is; an ended one is neither.
	t.Run("a held run is due for its check and saved until it ends", func(t *testing.T) {
		h := newStore(t)
		r := sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0))[0]
		start(t, h.Store, "t1", "e1", []flow.Run{r})
		held := r
		held.Outcome, held.ApprovalID = flow.OutcomeHeld, "ap_1"
		if err := h.Store.SaveRun(ctx, held, 1); err != nil {
			t.Fatalf("hold: %v", err)
		}
		if due, err := h.Store.DueRuns(ctx, "t1", t0.Add(time.Hour), 10); err != nil || len(due) != 1 || due[0].Outcome != flow.OutcomeHeld ||
			due[0].Pending == nil || due[0].ApprovalID != "ap_1" {
			t.Fatalf("due %+v %v: the held run, with its pending write", due, err)
		}
		done := held
		done.Outcome, done.Pending, done.NextAttemptAt = flow.OutcomeWritten, nil, nil
		if err := h.Store.SaveRun(ctx, done, 1); err != nil {
			t.Fatalf("the held run's end: %v", err)
		}
		if due, _ := h.Store.DueRuns(ctx, "t1", t0.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("due after its end: %v", due)
		}
		if err := h.Store.SaveRun(ctx, held, 1); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("a save over the ended run: %v, want ErrTaken", err)
		}
	})

	// Held runs wait on approvals that may take weeks, and a tenant can hold thousands (a
	// field every change carries held): listed apart, they never fill the page of runs
	// due that the redrive takes, so a retrying run is never kept behind their checks.
	t.Run("held runs due take no place of a retrying run", func(t *testing.T) {
		h := newStore(t)
		for i := range 3 {
			ev := fmt.Sprintf("h%d", i)
			r := sole(mk("t1", ev, "a", flow.OutcomeRetrying, t0))[0]
			start(t, h.Store, "t1", ev, []flow.Run{r})
			held := r
			held.Outcome, held.ApprovalID = flow.OutcomeHeld, "ap_"+ev
			if err := h.Store.SaveRun(ctx, held, 1); err != nil {
				t.Fatalf("hold %s: %v", ev, err)
			}
		}
		late := sole(mk("t1", "r1", "a", flow.OutcomeRetrying, t0.Add(10*time.Minute)))[0]
		start(t, h.Store, "t1", "r1", []flow.Run{late})
		due, err := h.Store.DueRuns(ctx, "t1", t0.Add(time.Hour), 2)
		n := map[flow.Outcome]int{}
		for _, r := range due {
			n[r.Outcome]++
		}
		if err != nil || n[flow.OutcomeRetrying] != 1 || n[flow.OutcomeHeld] != 2 {
			t.Fatalf("due %v (%v): %v; want the retrying run and up to the limit of held runs", n, err, due)
		}
	})

	t.Run("a lone run is saved where it was started; a marker takes no save", func(t *testing.T) {
		h := newStore(t)
		r := sole(mk("t1", "e1", "a", flow.OutcomeRetrying, t0))[0]
		start(t, h.Store, "t1", "e1", []flow.Run{r})
		taken := r
		taken.Attempts = 2
		if err := h.Store.SaveRun(ctx, taken, 1); err != nil {
			t.Fatalf("take over: %v", err)
		}
		done := taken
		done.Outcome, done.Pending, done.NextAttemptAt = flow.OutcomeWritten, nil, nil
		if err := h.Store.SaveRun(ctx, done, 1); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("a stale save: %v, want ErrTaken", err)
		}
		if err := h.Store.SaveRun(ctx, done, 2); err != nil {
			t.Fatal(err)
		}
		if got, err := h.Store.Run(ctx, "t1", r.ID); err != nil || got.Outcome != flow.OutcomeWritten || got.Attempts != 2 || got.Pending != nil {
			t.Fatalf("saved run %+v %v", got, err)
		}
		if page, _, err := h.Store.Runs(ctx, "t1", flow.RunQuery{Limit: 10}); err != nil || len(page) != 1 || page[0].Outcome != flow.OutcomeWritten {
			t.Fatalf("listed %v %v, want the one run as saved", page, err)
		}
		start(t, h.Store, "t1", "e2", nil)
		fake := mk("t1", "e2", "a", flow.OutcomeRetrying, t0)
		fake.ID = own("t1", "e2")
		if err := h.Store.SaveRun(ctx, fake, 1); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("a save over a marker: %v, want ErrTaken", err)
		}
		absent(t, h.Store, fake.ID)
		redelivered(t, h.Store, "e2", sole(mk("t1", "e2", "a", flow.OutcomeRetrying, t0)), []string{})
	})

	// A run read back is what its retry writes (the redrive's DueRuns, a resume's Run): its
	// numbers must keep every digit the source sent, as the governance hold keeps a held
	// write's. As float64, 12345678901234567890 would be written 12345678901234567000.
	t.Run("a run's pending numbers read back with their digits", func(t *testing.T) {
		h := newStore(t)
		r := mk("t1", "e1", "a", flow.OutcomeRetrying, t0)
		r.Pending.Fields = map[string]any{"accountNumber": json.Number("12345678901234567890"),
			"balance": json.Number("123456789012345.6789"), "rate": json.Number("0.10"), "lines": []any{json.Number("9007199254740993")}}
		r.Pending.Link = map[string]any{"x": json.Number("12345678901234567890")}
		start(t, h.Store, "t1", "e1", sole(r))
		got, err := h.Store.Run(ctx, "t1", own("t1", "e1"))
		if err != nil || got.Pending == nil || !reflect.DeepEqual(got.Pending.Fields, r.Pending.Fields) ||
			!reflect.DeepEqual(got.Pending.Link, r.Pending.Link) {
			t.Fatalf("Run read back %+v %v, want fields %v and link %v", got.Pending, err, r.Pending.Fields, r.Pending.Link)
		}
		due, err := h.Store.DueRuns(ctx, "t1", t0.Add(time.Hour), 10)
		if err != nil || len(due) != 1 || due[0].Pending == nil || !reflect.DeepEqual(due[0].Pending.Fields, r.Pending.Fields) {
			t.Fatalf("DueRuns %+v %v, want the run with fields %v", due, err, r.Pending.Fields)
		}
	})
}
