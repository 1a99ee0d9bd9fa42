// Package oncall is the one Go source of the service levels, the burn-rate alarms and the
// cause alarms' thresholds: the CDK stack builds its alarms from it and the fault suite's
// drills evaluate the EMF lines the functions printed against it, so the two cannot drift.
// docs/operations.md explains the objectives; each alarm's runbook is RunbookDir/<name>.md.
package oncall

import (
	"fmt"
	"math"
	"time"

	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
)

// RunbookDir is where the runbooks live in the repository.
const RunbookDir = "docs/runbooks"

// DefaultRunbookBase is the URL alarm descriptions prefix a runbook's repository path with
// (the stack's context key runbookBaseUrl overrides it).
const DefaultRunbookBase = "https://github.com/syncassist/syncassist/blob/main/"

// Period is the budget period every objective is measured over.
const Period = 30 * 24 * time.Hour

// Burn is one multi-window burn-rate alert (Google SRE workbook, "Alerting on SLOs",
// multiwindow multi-burn-rate alerts): it fires while the error budget burns at Rate
// times the sustainable pace over both Long and Short; Short makes it reset soon after the
// burning stops. Topic is the SNS topic the composite notifies.
type Burn struct {
	Name        string
	Long, Short time.Duration
	Rate        float64
	Topic       string
}

// The two burns: 14.4× over an hour spends 2 % of a 30-day budget, which pages; 6× over
// six hours spends 5 %, which is a ticket.
var (
	Fast  = Burn{Name: "Fast", Long: time.Hour, Short: 5 * time.Minute, Rate: 14.4, Topic: TopicPage}
	Slow  = Burn{Name: "Slow", Long: 6 * time.Hour, Short: 30 * time.Minute, Rate: 6, Topic: TopicTicket}
	Burns = []Burn{Fast, Slow}
)

// The topics: a page wakes someone, a ticket waits for working hours.
const (
	TopicPage   = "page"
	TopicTicket = "ticket"
)

// Objective is one user-facing service level. A request objective (Journey set) counts
// Requests of its journey answered 5xx against all of them; a latency objective counts
// LatencyMetric values above LatencyBound against all of them.
type Objective struct {
	Name, Title string
	Target      float64
	Journey     string
	// LatencyMetric is an EMF metric in milliseconds (service-wide series).
	LatencyMetric string
	LatencyBound  time.Duration
}

// Budget is the fraction of events allowed to be bad (rounded: 1 - 0.999 is not 0.001
// in floating point, and the alarms print it).
func (o Objective) Budget() float64 { return math.Round((1-o.Target)*1e9) / 1e9 }

// Human is a window as the descriptions and docs write it: "1 h", "30 min".
func Human(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%d h", d/time.Hour)
	}
	return fmt.Sprintf("%d min", d/time.Minute)
}

// Runbook is the objective's runbook path in the repository.
func (o Objective) Runbook() string { return RunbookDir + "/" + o.Name + ".md" }

// AlarmName is the stack id of the objective's alarm for burn b; window is "Long",
// "Short" or "" (the composite).
func (o Objective) AlarmName(b Burn, window string) string {
	return "Slo" + camel(o.Name) + b.Name + "Burn" + window
}

// The service levels of docs/operations.md.
var (
	IngestAccepted  = Objective{Name: "ingest-accepted", Title: "Ingest answered without 5xx", Target: 0.999, Journey: platform.JourneyIngest}
	DiagnosisOnTime = Objective{Name: "diagnosis-on-time", Title: "Diagnosis ready within 2 minutes of the claim", Target: 0.99,
		LatencyMetric: "DiagnosisLatency", LatencyBound: 2 * time.Minute}
	ApproveWriteBack = Objective{Name: "approve-write-back", Title: "Approve (and its write-back) answered without 5xx", Target: 0.995,
		Journey: platform.JourneyApprove}
	FlowEventAccepted = Objective{Name: "flow-event-accepted", Title: "Flow event answered without 5xx", Target: 0.999,
		Journey: platform.JourneyFlowEvent}
	ConsoleReads = Objective{Name: "console-reads", Title: "Console reads answered without 5xx", Target: 0.999,
		Journey: platform.JourneyConsoleRead}
	// A flow run's decision (written, skipped, refused, held, a loop broken, failed into a
	// sync error) from the event's receipt; a run waiting on a retry counts when decided.
	FlowEventDecided = Objective{Name: "flow-event-decided", Title: "Flow event written or decided within 5 minutes", Target: 0.99,
		LatencyMetric: flow.MetricFlowDecisionLatency, LatencyBound: 5 * time.Minute}
	Objectives = []Objective{IngestAccepted, DiagnosisOnTime, ApproveWriteBack, FlowEventAccepted, FlowEventDecided, ConsoleReads}
)

// Kind is a kind of cause alarm: one per resource (a DLQ, a function, a table) or one
// alone; they share a runbook.
type Kind struct {
	Name string
	// Threshold is the value at or above which (below which, for ReconcileStopped) one
	// Window's datapoint fires.
	Threshold float64
	Window    time.Duration
	// Metric and Dims name the EMF series of the kinds built on the service's own metrics
	// (empty for AWS metrics); the drills evaluate those.
	Metric string
	Dims   map[string]string
}

// Runbook is the kind's runbook path in the repository.
func (k Kind) Runbook() string { return RunbookDir + "/" + k.Name + ".md" }

// The cause alarms' kinds.
var (
	DeadLetter       = Kind{Name: "dead-letter", Threshold: 1, Window: 5 * time.Minute}
	FunctionFailures = Kind{Name: "function-failures", Threshold: 1, Window: 5 * time.Minute}
	TableThrottles   = Kind{Name: "table-throttles", Threshold: 1, Window: 5 * time.Minute}
	// Diagnoses normally start within seconds; a quarter hour means the worker is down or
	// failing every message before the DLQ takes it.
	DiagnosisQueueAge = Kind{Name: "diagnosis-queue-age", Threshold: (15 * time.Minute).Seconds(), Window: 5 * time.Minute}
	Api5xx            = Kind{Name: "api-5xx", Threshold: 1, Window: 5 * time.Minute}
	// Fewer than one run in each of three quarter hours: the reconcile runs every 30.
	ReconcileStopped = Kind{Name: "reconcile-stopped", Threshold: 1, Window: 15 * time.Minute, Metric: "ReconcileRuns"}
	ApproveFailures  = Kind{Name: "approve-failures", Threshold: 1, Window: 5 * time.Minute, Metric: "Approves",
		Dims: map[string]string{"outcome": "failed"}}
	// An approve's outcome that could not be read for a day went back to a person marked
	// unverified: the record may hold the write, so someone must look before approving again.
	OutcomeUnverified       = Kind{Name: "outcome-unverified", Threshold: 1, Window: 5 * time.Minute, Metric: "OutcomesUnverified"}
	OwnershipRejectionSpike = Kind{Name: "ownership-rejection-spike", Threshold: 10, Window: 5 * time.Minute,
		Metric: governance.MetricOwnershipRejects}
	LoopDetectionSpike = Kind{Name: "loop-detection-spike", Threshold: 10, Window: 5 * time.Minute,
		Metric: governance.MetricGuardDecisions, Dims: map[string]string{"decision": string(governance.DecisionLoopBlocked)}}
	Kinds = []Kind{DeadLetter, FunctionFailures, TableThrottles, DiagnosisQueueAge, Api5xx, ReconcileStopped,
		ApproveFailures, OutcomeUnverified, OwnershipRejectionSpike, LoopDetectionSpike}
)

func camel(s string) string {
	out := make([]byte, 0, len(s))
	up := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '-' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		out = append(out, c)
	}
	return string(out)
}
