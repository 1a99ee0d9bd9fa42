package flow_test

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// source is a system's records as a changed-since read sees them: at or after since,
// oldest first, paged by offset as most vendors page.
type source struct {
	changes []connector.Change
	fail    error
	reads   int
}

func (s *source) add(id string, at time.Time, fields map[string]any) {
	s.changes = append(s.changes, connector.Change{ChangedAt: at,
		Record: connector.Record{Entity: "Account", ID: id, Version: at.Format(time.RFC3339Nano), Fields: fields}})
}

func (s *source) Changes(_ context.Context, _ string, _ connector.System, _ string, since time.Time, cursor string, limit int) (connector.ChangePage, error) {
	s.reads++
	if s.fail != nil {
		return connector.ChangePage{}, s.fail
	}
	var found []connector.Change
	for _, c := range s.changes {
		if !c.ChangedAt.Before(since) {
			found = append(found, c)
		}
	}
	slices.SortFunc(found, func(a, b connector.Change) int {
		return cmp.Or(a.ChangedAt.Compare(b.ChangedAt), cmp.Compare(a.Record.ID, b.Record.ID))
	})
	offset, _ := strconv.Atoi(cursor)
	page := connector.ChangePage{Changes: found[min(offset, len(found)):min(offset+limit, len(found))]}
	if offset+limit < len(found) {
		page.NextCursor = strconv.Itoa(offset + limit)
	}
	return page, nil
}

type pollRig struct {
	store  *flow.DynamoStore
	guard  *scriptedGuard
	src    *source
	poller *flow.Poller
	now    time.Time
}

func newPollRig(t *testing.T, page, budget int) *pollRig {
	t.Helper()
	rig := &pollRig{store: newStore(t), guard: &scriptedGuard{results: []guardResult{{}}}, src: &source{}, now: t0}
	ctx := context.Background()
	crm := flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}
	erp := flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}
	for _, f := range []flow.Flow{
		{ID: "polled", Enabled: true, Trigger: flow.TriggerPoll, Source: crm, Target: erp, Mapping: map[string]string{"phone": "Phone"}, UpdatedAt: t0},
		// An event flow of the same source: a polled change must not run it.
		{ID: "pushed", Enabled: true, Trigger: flow.TriggerEvent, Source: crm, Target: erp, Mapping: map[string]string{"email": "Email"}, UpdatedAt: t0},
	} {
		if err := rig.store.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}
	x := &flow.Executor{Store: rig.store, Guard: rig.guard, SyncErrors: &reporter{}, Now: func() time.Time { return rig.now }}
	rig.poller = &flow.Poller{Exec: x, Source: rig.src, Page: page, Budget: budget}
	return rig
}

// putPolled puts the poll flow again, as changed at at.
func (r *pollRig) putPolled(t *testing.T, at time.Time) {
	t.Helper()
	f, err := r.store.Flow(context.Background(), "t1", "polled")
	if err != nil {
		t.Fatal(err)
	}
	f.UpdatedAt = at
	if err := r.store.PutFlow(context.Background(), "t1", f); err != nil {
		t.Fatal(err)
	}
}

func (r *pollRig) poll(t *testing.T) flow.PollReport {
	t.Helper()
	r.now = r.now.Add(time.Minute)
	rep, _ := r.poller.Poll(context.Background(), "t1")
	return rep
}

func (r *pollRig) watermark(t *testing.T) flow.Watermark {
	t.Helper()
	w, err := r.store.Watermark(context.Background(), "t1", flow.Endpoint{System: connector.SystemCRM, Entity: "Account"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The first poll starts when the flow was put; each change runs the poll flow once, and
// reading the same changes again starts nothing.
func TestPollRunsEachChangeOnce(t *testing.T) {
	rig := newPollRig(t, 2, 0)
	rig.src.add("old", t0.Add(-time.Hour), map[string]any{"Phone": "+0"})
	// Put at 10:00:00.5, a change at 10:00:00 kept to the second (as vendors keep them)
	// may have come after it, and is read.
	rig.putPolled(t, t0.Add(500*time.Millisecond))
	rig.src.add("same-second", t0, map[string]any{"Phone": "+00"})
	for i := range 5 {
		rig.src.add("A"+strconv.Itoa(i), t0.Add(time.Duration(i+1)*time.Second), map[string]any{"Phone": "+" + strconv.Itoa(i), "Email": "x"})
	}
	rep := rig.poll(t)
	if rep.Sources != 1 || rep.Changes != 6 || rep.Runs != 6 || rep.Failed != 0 {
		t.Fatalf("first poll %+v, want 6 changes and 6 runs (the event flow and the change before the flow left out)", rep)
	}
	if len(rig.guard.writes) != 6 {
		t.Fatalf("%d guarded writes, want 6", len(rig.guard.writes))
	}
	for _, w := range rig.guard.writes {
		if _, ok := w.Fields["email"]; ok || w.Fields["phone"] == nil {
			t.Fatalf("write %+v: only the poll flow's mapping is written", w.Fields)
		}
	}
	w := rig.watermark(t)
	if !w.Since.Equal(t0.Add(5*time.Second)) || w.Changes != 6 || w.Error != "" || !w.PolledAt.Equal(rig.now) {
		t.Fatalf("watermark %+v", w)
	}
	// Nothing new: the newest change is read again (the bound is inclusive) and starts nothing.
	reads := rig.src.reads
	if rep := rig.poll(t); rep.Runs != 0 || rep.Changes != 0 || rig.src.reads != reads+1 {
		t.Fatalf("second poll %+v after %d reads, want one read and nothing new", rep, rig.src.reads-reads)
	}
	// A change in the same instant as the newest one read is still found.
	rig.src.add("B", t0.Add(5*time.Second), map[string]any{"Phone": "+9"})
	rig.src.add("C", t0.Add(time.Hour), map[string]any{"Phone": "+10"})
	if rep := rig.poll(t); rep.Runs != 2 {
		t.Fatalf("third poll %+v, want runs for B and C", rep)
	}
	runs, _, err := rig.store.Runs(context.Background(), "t1", flow.RunQuery{Limit: 50})
	if err != nil || len(runs) != 8 {
		t.Fatalf("%d runs (%v), want 8", len(runs), err)
	}
	for _, r := range runs {
		if r.FlowID != "polled" || r.Outcome != flow.OutcomeWritten || r.EventID[:len(flow.PollEventPrefix)] != flow.PollEventPrefix {
			t.Fatalf("run %+v", r)
		}
	}
}

// A page of changes that all carry the watermark's time cannot move it on; the poll goes
// on with the source's own cursor instead of reading that page for ever.
func TestPollPagesThroughChangesOfOneInstant(t *testing.T) {
	rig := newPollRig(t, 2, 0)
	at := t0.Add(time.Second)
	for i := range 5 {
		rig.src.add("S"+strconv.Itoa(i), at, map[string]any{"Phone": strconv.Itoa(i)})
	}
	if rep := rig.poll(t); rep.Runs != 5 {
		t.Fatalf("poll %+v, want 5 runs", rep)
	}
	if w := rig.watermark(t); !w.Since.Equal(at) || w.Cursor != "" {
		t.Fatalf("watermark %+v", w)
	}
}

// A poll stops at its budget and the next one goes on from there; none is lost or doubled.
func TestPollBudgetCarriesOver(t *testing.T) {
	rig := newPollRig(t, 2, 3)
	for i := range 7 {
		rig.src.add("R"+strconv.Itoa(i), t0.Add(time.Duration(i+1)*time.Second), map[string]any{"Phone": strconv.Itoa(i)})
	}
	total := 0
	for range 4 {
		total += rig.poll(t).Runs
	}
	if total != 7 || len(rig.guard.writes) != 7 {
		t.Fatalf("%d runs and %d writes over four polls, want 7 of each", total, len(rig.guard.writes))
	}
}

// A source that fails leaves the watermark where it was, says why, and the next poll
// reads what the failed one could not.
func TestPollFailureIsRecordedAndRecovered(t *testing.T) {
	rig := newPollRig(t, 10, 0)
	rig.src.add("A", t0.Add(time.Second), map[string]any{"Phone": "+1"})
	rig.src.fail = &connector.Error{System: connector.SystemCRM, Op: "changes", Err: connector.ErrRateLimited}
	if rep := rig.poll(t); rep.Failed != 1 || rep.Runs != 0 {
		t.Fatalf("failing poll %+v", rep)
	}
	w := rig.watermark(t)
	if w.Error != "reading crm/Account failed: rate_limited" || !w.Since.Equal(t0) {
		t.Fatalf("watermark after a failure %+v", w)
	}
	rig.src.fail = nil
	if rep := rig.poll(t); rep.Runs != 1 || rep.Failed != 0 {
		t.Fatalf("recovering poll %+v", rep)
	}
	if w := rig.watermark(t); w.Error != "" {
		t.Fatalf("the error outlived the recovery: %+v", w)
	}
}

// Two polls of one source at once: the second to save is told, and keeps nothing stale.
func TestWatermarkSaveIsConditional(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	src := flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}
	w := flow.Watermark{Source: src, Since: t0, PolledAt: t0, Cursor: "offset=200"}
	if err := s.SaveWatermark(ctx, "t1", w, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveWatermark(ctx, "t1", w, nil); !errors.Is(err, flow.ErrTaken) {
		t.Fatalf("a second first save: %v, want ErrTaken", err)
	}
	next := w
	next.PolledAt, next.Since = t0.Add(time.Minute), t0.Add(time.Second)
	if err := s.SaveWatermark(ctx, "t1", next, &w.PolledAt); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveWatermark(ctx, "t1", w, &w.PolledAt); !errors.Is(err, flow.ErrTaken) {
		t.Fatalf("a stale save: %v, want ErrTaken", err)
	}
	got, err := s.Watermark(ctx, "t1", src)
	if err != nil || !got.Since.Equal(next.Since) || got.Cursor != "offset=200" {
		t.Fatalf("watermark %+v %v", got, err)
	}
	if _, err := s.Watermark(ctx, "t1", flow.Endpoint{System: connector.SystemCRM, Entity: "Contact"}); !errors.Is(err, flow.ErrNotFound) {
		t.Fatalf("a source never polled: %v", err)
	}
}

// A poll whose deadline is near reads no source and marks none polled: the next poll
// takes them.
func TestPollLeavesSourcesToTheNextPollNearItsDeadline(t *testing.T) {
	rig := newPollRig(t, 10, 0)
	rig.src.add("A", t0.Add(time.Second), map[string]any{"Phone": "+1"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rep, err := rig.poller.Poll(ctx, "t1")
	if err != nil || rep.Skipped != 1 || rep.Sources != 0 || rig.src.reads != 0 {
		t.Fatalf("poll near its deadline: %+v %v after %d reads", rep, err, rig.src.reads)
	}
	if _, err := rig.store.Watermark(context.Background(), "t1", flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}); !errors.Is(err, flow.ErrNotFound) {
		t.Fatalf("a skipped source got a watermark: %v", err)
	}
	if rep := rig.poll(t); rep.Runs != 1 {
		t.Fatalf("the next poll %+v, want the change run", rep)
	}
}
