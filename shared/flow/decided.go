package flow

import (
	"time"

	"github.com/syncassist/syncassist/shared/emf"
)

// Metrics of a run that reached its outcome: FlowRuns counts them by outcome, and
// FlowDecisionLatency is the time from the event's receipt (the run's creation) to that
// outcome, in milliseconds. The objective "flow event written or decided within 5
// minutes" (infra/oncall, docs/operations.md) is computed from the latency.
const (
	MetricFlowRuns            = "FlowRuns"
	MetricFlowDecisionLatency = "FlowDecisionLatency"
)

// emitDecided reports a run that is no longer retrying. A run that waits for a retry
// reports nothing yet: its latency runs on until the attempt that decides it.
func emitDecided(r Run, now time.Time) {
	if r.Outcome == OutcomeRetrying {
		return
	}
	latency := max(now.Sub(r.CreatedAt), 0)
	emf.Emit(emf.Metric{Time: now, Dimensions: []string{"outcome"},
		Counts: map[string]float64{MetricFlowRuns: 1, MetricFlowDecisionLatency: float64(latency.Milliseconds())},
		Units:  map[string]string{MetricFlowDecisionLatency: "Milliseconds"},
		Fields: map[string]any{"outcome": string(r.Outcome), "tenant": r.TenantID, "flow": r.FlowID, "run": r.ID}})
}
