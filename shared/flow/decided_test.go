package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/flow"
)

// decisions are the FlowRuns EMF lines printed: outcome and latency in milliseconds.
func decisions(t *testing.T, log string) (out []map[string]any) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var doc map[string]any
		if line == "" || json.Unmarshal([]byte(line), &doc) != nil || doc[flow.MetricFlowRuns] == nil {
			continue
		}
		out = append(out, doc)
	}
	return out
}

// A run reports its decision latency from the event's receipt once it has an outcome: a
// skipped run at once, a retried one at the attempt that decided it, with the wait.
func TestExecutorReportsDecisionLatency(t *testing.T) {
	var log bytes.Buffer
	prev := emf.Out
	emf.Out = &log
	t.Cleanup(func() { emf.Out = prev })
	s, ctx := newStore(t), context.Background()
	f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}
	if err := s.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	now := t0
	g := &scriptedGuard{results: []guardResult{{err: connErr(connector.ErrUnavailable)}, {}}}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return now },
		Backoff: []time.Duration{5 * time.Minute}}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e1", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Name": "no mapped field"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "e2", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}}); err != nil {
		t.Fatal(err)
	}
	got := decisions(t, log.String())
	if len(got) != 1 || got[0]["outcome"] != string(flow.OutcomeSkipped) || got[0][flow.MetricFlowDecisionLatency] != 0.0 {
		t.Fatalf("after the events: %v, want the skipped run only (the other is retrying)", got)
	}
	now = now.Add(5*time.Minute + time.Second)
	if n, err := x.Redrive(ctx, "t1"); n != 1 || err != nil {
		t.Fatalf("redrive: %d %v", n, err)
	}
	got = decisions(t, log.String())
	want := float64((5*time.Minute + time.Second).Milliseconds())
	if len(got) != 2 || got[1]["outcome"] != string(flow.OutcomeWritten) || got[1][flow.MetricFlowDecisionLatency] != want {
		t.Fatalf("after the redrive: %v, want the written run decided after %g ms", got, want)
	}
}
