package emf_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/emf/emftest"
)

var at = time.Date(2026, 11, 30, 11, 38, 50, 0, time.UTC)

// approve is what one approve emits, in its order (infra/cost, COST_LOG=1).
func approve() []emf.Metric {
	return []emf.Metric{
		{Time: at, Counts: map[string]float64{"GuardDecisions": 1}, Dimensions: []string{"decision", "system"}, Rollups: [][]string{{"decision"}},
			Fields: map[string]any{"decision": "written", "system": "hosterp", "tenant": "cost", "source": "hosterp", "entity": "salesOrder"}},
		{Time: at, Counts: map[string]float64{"Approves": 1}, Dimensions: []string{"feature", "outcome"},
			Fields: map[string]any{"feature": "syncerror", "outcome": "written", "tenant": "cost"}},
		{Time: at, Counts: map[string]float64{"Learned": 1}, Dimensions: []string{"feature", "verdict"},
			Fields: map[string]any{"feature": "syncerror", "verdict": "approved", "tenant": "cost"}},
		{Time: at.Add(5 * time.Millisecond), Counts: map[string]float64{"Resolved": 1, "TimeToResolve": 240}, Units: map[string]string{"TimeToResolve": "Milliseconds"},
			Dimensions: []string{"feature", "class", "by"}, Fields: map[string]any{"feature": "syncerror", "class": "value", "by": "person", "tenant": "cost"}},
		{Time: at.Add(6 * time.Millisecond), Counts: map[string]float64{"Requests": 1}, Dimensions: []string{"journey", "class"}, Rollups: [][]string{{"journey"}},
			Fields: map[string]any{"journey": "approve", "class": "2xx"}},
	}
}

// capture points emf.Out at a buffer for the test.
func capture(t *testing.T) *bytes.Buffer {
	var b bytes.Buffer
	prev := emf.Out
	emf.Out = &b
	t.Cleanup(func() { emf.Out = prev })
	return &b
}

// alone is the datapoints of ms written one line each, as Emit did before it packed.
func alone(t *testing.T, ms []emf.Metric) []string {
	var b bytes.Buffer
	for _, m := range ms {
		if err := emf.Write(&b, m); err != nil {
			t.Fatal(err)
		}
	}
	points, docs, err := emftest.Parse(b.Bytes())
	if err != nil || docs != len(ms) {
		t.Fatalf("%d documents for %d metrics: %v", docs, len(ms), err)
	}
	return points
}

// batched emits ms in one invocation's Batch and returns its datapoints and lines.
func batched(t *testing.T, ms []emf.Metric) ([]string, int) {
	out := capture(t)
	func() {
		defer emf.Collect(context.Background()).Flush()
		for _, m := range ms {
			emf.Emit(m)
		}
	}()
	points, docs, err := emftest.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != docs {
		t.Fatalf("%d lines, %d documents", n, docs)
	}
	return points, docs
}

// An approve's five metrics are two lines, with the very datapoints of five: Requests's
// class (2xx) is not Resolved's (value), so it starts the second.
func TestBatchPacksAnInvocationsMetrics(t *testing.T) {
	ms := approve()
	points, docs := batched(t, ms)
	if want := alone(t, ms); !slices.Equal(points, want) {
		t.Fatalf("packed datapoints\n%q\nwant\n%q", points, want)
	}
	if docs != 2 {
		t.Fatalf("%d lines, want 2", docs)
	}
}

// What two metrics cannot share starts a new document; what they can share does not.
func TestBatchStartsANewDocumentOnACollision(t *testing.T) {
	m := func(name string, fields map[string]any, dims ...string) emf.Metric {
		return emf.Metric{Time: at, Counts: map[string]float64{name: 1}, Dimensions: dims, Fields: fields}
	}
	many := func(prefix string, n int) emf.Metric {
		c := map[string]float64{}
		for i := range n {
			c[fmt.Sprintf("%s%02d", prefix, i)] = float64(i)
		}
		return emf.Metric{Time: at, Counts: c}
	}
	later := m("B", nil)
	later.Time = at.Add(time.Minute)
	for _, tc := range []struct {
		name string
		ms   []emf.Metric
		docs int
	}{
		{"a dimension's value differs", []emf.Metric{m("A", map[string]any{"class": "2xx"}, "class"), m("B", map[string]any{"class": "value"}, "class")}, 2},
		{"a field's value differs", []emf.Metric{m("A", map[string]any{"tenant": "a"}), m("B", map[string]any{"tenant": "b"})}, 2},
		{"a metric emitted twice", []emf.Metric{m("A", nil), m("A", nil)}, 2},
		{"a field named as a metric", []emf.Metric{m("A", nil), m("B", map[string]any{"A": 1.0})}, 2},
		{"a metric named as a field", []emf.Metric{m("B", map[string]any{"A": 1.0}), m("A", nil)}, 2},
		{"another minute", []emf.Metric{m("A", nil), later}, 2},
		{"over 100 metrics", []emf.Metric{many("a", 60), many("b", 41)}, 2},
		{"100 metrics", []emf.Metric{many("a", 60), many("b", 40)}, 1},
		{"equal values shared", []emf.Metric{m("A", map[string]any{"tenant": "a"}, "tenant"), m("B", map[string]any{"tenant": "a", "n": 2})}, 1},
		{"one directive for one dimension set", []emf.Metric{m("A", map[string]any{"feature": "f"}, "feature"), m("B", map[string]any{"feature": "f"}, "feature")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			points, docs := batched(t, tc.ms)
			if want := alone(t, tc.ms); !slices.Equal(points, want) {
				t.Fatalf("packed datapoints\n%q\nwant\n%q", points, want)
			}
			if docs != tc.docs {
				t.Fatalf("%d lines, want %d", docs, tc.docs)
			}
		})
	}
}

// Metrics of one dimension set share a directive: the set is written once.
func TestBatchSharesADirective(t *testing.T) {
	out := capture(t)
	b := emf.Collect(context.Background())
	emf.Emit(emf.Metric{Time: at, Counts: map[string]float64{"A": 1}, Dimensions: []string{"feature"}, Fields: map[string]any{"feature": "f"}})
	emf.Emit(emf.Metric{Time: at, Counts: map[string]float64{"B": 1}, Dimensions: []string{"feature"}, Fields: map[string]any{"feature": "f"}})
	b.Flush()
	if n := bytes.Count(out.Bytes(), []byte(`"Namespace"`)); n != 1 {
		t.Fatalf("%d directives in %s", n, out)
	}
}

// Outside a Batch, and while invocations overlap, a metric is written at once.
func TestEmitWritesAtOnceWithoutOneBatch(t *testing.T) {
	out := capture(t)
	emf.Emit(approve()[0])
	if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("no batch: %q", out)
	}
	first, second := emf.Collect(context.Background()), emf.Collect(context.Background())
	emf.Emit(approve()[1])
	if bytes.Count(out.Bytes(), []byte("\n")) != 2 {
		t.Fatalf("two batches: %q", out)
	}
	first.Flush()
	second.Flush()
	if bytes.Count(out.Bytes(), []byte("\n")) != 2 {
		t.Fatalf("flushed %q", out)
	}
}

// A metric naming a dimension it has no field for would take another's value in a shared
// document: it is written alone.
func TestBatchLeavesAnIncompleteMetricAlone(t *testing.T) {
	ms := []emf.Metric{
		{Time: at, Counts: map[string]float64{"A": 1}, Fields: map[string]any{"tenant": "a"}},
		{Time: at, Counts: map[string]float64{"B": 1}, Dimensions: []string{"tenant"}},
	}
	out := capture(t)
	b := emf.Collect(context.Background())
	for _, m := range ms {
		emf.Emit(m)
	}
	if bytes.Count(out.Bytes(), []byte("\n")) != 1 || !bytes.Contains(out.Bytes(), []byte(`"B":1`)) {
		t.Fatalf("before the flush: %q", out)
	}
	b.Flush()
	if bytes.Count(out.Bytes(), []byte("\n")) != 2 {
		t.Fatalf("after: %q", out)
	}
}

// A panic between Collect and the end of the invocation loses nothing: the flush is
// deferred.
func TestBatchFlushedOnPanic(t *testing.T) {
	out := capture(t)
	func() {
		defer func() { _ = recover() }()
		defer emf.Collect(context.Background()).Flush()
		for _, m := range approve() {
			emf.Emit(m)
		}
		panic("handler failed")
	}()
	points, docs, err := emftest.Parse(out.Bytes())
	if want := alone(t, approve()); err != nil || docs != 2 || !slices.Equal(points, want) {
		t.Fatalf("%d lines %q, %v", docs, points, err)
	}
}

// The worker's goroutines emit into one invocation's Batch at once.
func TestBatchTakesConcurrentMetrics(t *testing.T) {
	var ms []emf.Metric
	for i := range 40 {
		ms = append(ms, emf.Metric{Time: at, Counts: map[string]float64{"Diagnoses": 1, "DiagnosisLatency": float64(i)},
			Dimensions: []string{"class"}, Fields: map[string]any{"class": []string{"value", "auth"}[i%2], "tenant": "t"}})
	}
	out := capture(t)
	b := emf.Collect(context.Background())
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { emf.Emit(m) })
	}
	wg.Wait()
	b.Flush()
	points, _, err := emftest.Parse(out.Bytes())
	if want := alone(t, ms); err != nil || !slices.Equal(points, want) {
		t.Fatalf("datapoints %d of %d: %v", len(points), len(want), err)
	}
}

// Lambda stops an invocation at its deadline without running its defers: a Batch writes
// what it holds FlushAhead before the context's deadline, and what comes after is written
// at once, so a timed-out invocation's metrics reach the log.
func TestBatchFlushesAheadOfTheDeadline(t *testing.T) {
	out := &emftest.Lines{}
	prev := emf.Out
	emf.Out = out
	t.Cleanup(func() { emf.Out = prev })
	ctx, cancel := context.WithTimeout(context.Background(), emf.FlushAhead+200*time.Millisecond)
	defer cancel()
	deadline, _ := ctx.Deadline()
	b := emf.Collect(ctx)
	defer b.Flush()
	emf.Emit(approve()[0])
	// Checked only while the flush is not yet due, so a stalled machine cannot fail it.
	if n := len(out.All()); n != 0 && time.Now().Before(deadline.Add(-emf.FlushAhead)) {
		t.Fatalf("%d lines written before the flush was due, want the metric held", n)
	}
	for len(out.All()) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the deadline passed and the held metric was never written")
		case <-time.After(5 * time.Millisecond):
		}
	}
	emf.Emit(approve()[1])
	if n := len(out.All()); n != 2 {
		t.Fatalf("%d lines after the early flush and one more metric, want 2 (the later one at once)", n)
	}
}
