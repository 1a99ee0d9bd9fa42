package ai_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// slowTraces stores a trace after delay, or gives up when its context ends first.
type slowTraces struct {
	*aitest.TraceStore
	delay time.Duration
}

func (s slowTraces) PutTrace(ctx context.Context, t ai.Trace) error {
	select {
	case <-time.After(s.delay):
		return s.TraceStore.PutTrace(ctx, t)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A store slower than the records' bound, while the caller still waits, is waited for: the
// inference succeeded and is recorded once. Bounded from its start, the write failed and
// the diagnosis worker retried the inference, a second model call billed (the fault
// suite's burst under load: an audit put past 5 s on the loaded emulator).
func TestRecordsWaitForASlowStoreWhileTheCallerWaits(t *testing.T) {
	defer ai.SetRecordTimeout(20 * time.Millisecond)()
	h := aitest.NewHarness(nil)
	traces := slowTraces{TraceStore: h.Traces, delay: 150 * time.Millisecond}
	g := ai.NewGoverned(h.Provider, h.Scanner, traces, h.Costs, h.Audit)
	if _, err := g.Diagnose(context.Background(), operatorID(), "inf-slow", "se_claim1", sampleRequest()); err != nil {
		t.Fatalf("a slow trace store failed the inference: %v", err)
	}
	if n := len(h.Traces.Traces()); n != 1 {
		t.Errorf("%d traces, want 1", n)
	}
}

// Once the caller's context has ended (a model timeout), the records are still written,
// within the bound: a store that never answers does not hold the caller.
func TestRecordsAfterTheCallerEndedAreBounded(t *testing.T) {
	defer ai.SetRecordTimeout(50 * time.Millisecond)()
	h := aitest.NewHarness(nil)
	traces := slowTraces{TraceStore: h.Traces, delay: time.Hour}
	g := ai.NewGoverned(h.Provider, h.Scanner, traces, h.Costs, h.Audit)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := g.Diagnose(ctx, operatorID(), "inf-hung", "se_claim1", sampleRequest())
	if err == nil {
		t.Fatal("a trace that was never stored went unreported")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the records' write held the caller %s after its context ended", took)
	}
	// The cost records went to their own store within the bound.
	if len(h.Costs.Costs()) == 0 {
		t.Error("no cost record written after the caller's context ended")
	}
}
