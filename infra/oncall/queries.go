package oncall

import (
	"fmt"
	"strings"
)

// Query is a CloudWatch Logs Insights query saved in the stack (AWS::Logs::QueryDefinition
// named QueryFolder/<Name>), over the functions' log group: the first thing a runbook
// runs.
type Query struct {
	Name, Text string
}

// QueryFolder is the folder the queries are saved under in the Logs Insights console
// (a "/" in a query definition's name makes a folder).
const QueryFolder = "syncassist"

// The saved queries. Field names are the functions' JSON log lines (slog: level, msg;
// httpapi.Instrument's "request" line: method, path, status, durationMs, correlationId)
// and their EMF lines (metric names as fields).
var (
	QueryRequests5xx = Query{Name: "requests-5xx", Text: `fields @timestamp, @logStream, method, path, status, correlationId
| filter msg = "request" and status >= 500
| sort @timestamp desc
| limit 100`}
	QueryErrors = Query{Name: "errors-by-message", Text: `fields @timestamp, @logStream, msg, error, tenant, id
| filter level = "ERROR" or level = "WARN"
| stats count(*) as lines, latest(error) as lastError by @logStream, msg
| sort lines desc
| limit 50`}
	QueryDiagnosis = Query{Name: "diagnosis-latency", Text: `fields @timestamp, class, tenant, DiagnosisLatency
| filter ispresent(DiagnosisLatency)
| stats count(*) as diagnoses, pct(DiagnosisLatency, 50) as p50, pct(DiagnosisLatency, 99) as p99, max(DiagnosisLatency) as slowest by bin(5m)
| sort @timestamp desc`}
	QueryThrottles = Query{Name: "throttled-calls", Text: `fields @timestamp, @logStream, msg, error, tenant
| filter error like /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|TooManyRequests|429/
| stats count(*) as lines by @logStream, msg
| sort lines desc`}
	QueryGovernance = Query{Name: "governance-refusals", Text: `fields @timestamp, tenant, system, decision, OwnershipRejections, GuardDecisions
| filter ispresent(OwnershipRejections) or decision = "loop_blocked"
| stats count(*) as refusals by tenant, system, decision
| sort refusals desc`}
	QueryFlowDecisions = Query{Name: "flow-decision-latency", Text: `fields @timestamp, tenant, flow, outcome, run, FlowDecisionLatency
| filter ispresent(FlowDecisionLatency)
| stats count(*) as runs, pct(FlowDecisionLatency, 50) as p50, pct(FlowDecisionLatency, 99) as p99, max(FlowDecisionLatency) as slowest by outcome, bin(5m)
| sort @timestamp desc`}
	Queries = []Query{QueryRequests5xx, QueryErrors, QueryDiagnosis, QueryThrottles, QueryGovernance, QueryFlowDecisions}
)

// FullName is the query definition's name.
func (q Query) FullName() string { return QueryFolder + "/" + q.Name }

// insightsCommands are the Logs Insights commands (CloudWatch Logs Insights query
// syntax): a saved query whose stage starts with anything else does not run.
var insightsCommands = []string{"fields", "filter", "stats", "sort", "limit", "parse", "display", "dedup", "unmask", "pattern", "diff", "filterIndex", "SOURCE", "unnest", "lookup"}

// Check is a syntax check of a saved query short of running it: every stage of the pipe (one a
// line) starts with a Logs Insights command, parentheses and quotes balance.
func (q Query) Check() error {
	if strings.Count(q.Text, "(") != strings.Count(q.Text, ")") {
		return fmt.Errorf("query %s: unbalanced parentheses", q.Name)
	}
	if strings.Count(q.Text, `"`)%2 != 0 {
		return fmt.Errorf("query %s: unbalanced quotes", q.Name)
	}
	// One stage a line (a regex may hold a "|").
	for _, stage := range strings.Split(q.Text, "\n") {
		word, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(stage, "|")), " ")
		known := false
		for _, c := range insightsCommands {
			known = known || word == c
		}
		if !known {
			return fmt.Errorf("query %s: stage %q starts with no Logs Insights command", q.Name, strings.TrimSpace(stage))
		}
	}
	return nil
}
