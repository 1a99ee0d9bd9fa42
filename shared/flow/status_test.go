package flow_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

func statusRun(flowID string, target connector.System, o flow.Outcome, at time.Time) flow.Run {
	return flow.Run{FlowID: flowID, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: target, Entity: "x"}, Outcome: o, Decision: "decision of " + string(o),
		CreatedAt: at, UpdatedAt: at}
}

func TestSummariseJudgesEachTargetFromItsWriteAttempts(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(-time.Duration(min) * time.Minute) }
	// Newest first, as the store lists them.
	runs := []flow.Run{
		statusRun("to-crm", connector.SystemCRM, flow.OutcomeFailed, at(1)),
		statusRun("to-crm", connector.SystemCRM, flow.OutcomeRetrying, at(2)),
		statusRun("to-crm", connector.SystemCRM, flow.OutcomeRejected, at(3)), // governance, not health
		statusRun("to-crm", connector.SystemCRM, flow.OutcomeFailed, at(4)),
		statusRun("to-crm", connector.SystemCRM, flow.OutcomeWritten, at(5)),
		statusRun("to-ship", connector.SystemShipping, flow.OutcomeWritten, at(6)),
		statusRun("to-ship", connector.SystemShipping, flow.OutcomeRetrying, at(7)),
		statusRun("to-host", connector.SystemHostERP, flow.OutcomeWritten, at(8)),
		statusRun("to-host", connector.SystemHostERP, flow.OutcomeLoopBroken, at(9)),
		statusRun("to-mkt", connector.SystemMarketing, flow.OutcomeSkipped, at(10)),
	}
	st := flow.Summarise(at(60), runs, false)
	want := map[connector.System]flow.Health{
		connector.SystemCRM: flow.HealthFailing, connector.SystemShipping: flow.HealthDegraded, connector.SystemHostERP: flow.HealthOK,
		connector.SystemMarketing: flow.HealthIdle, connector.SystemERP2: flow.HealthIdle,
	}
	if len(st.Systems) != len(connector.Systems) {
		t.Fatalf("%d systems, want every one", len(st.Systems))
	}
	for _, s := range st.Systems {
		if s.Health != want[s.System] {
			t.Errorf("%s: health %s, want %s", s.System, s.Health, want[s.System])
		}
	}
	crm := st.Systems[indexOf(st, connector.SystemCRM)]
	if crm.Counts[flow.OutcomeFailed] != 2 || crm.Counts[flow.OutcomeRejected] != 1 || crm.Counts[flow.OutcomeWritten] != 1 {
		t.Errorf("crm counts %v", crm.Counts)
	}
	if !crm.LastFailureAt.Equal(at(1)) || crm.LastFailure != "decision of failed" || !crm.LastWrittenAt.Equal(at(5)) {
		t.Errorf("crm last failure %v %q, last written %v", crm.LastFailureAt, crm.LastFailure, crm.LastWrittenAt)
	}
	if len(st.Flows) != 4 || st.Flows[0].FlowID != "to-crm" || !st.Flows[0].LastRunAt.Equal(at(1)) || st.Flows[0].Counts[flow.OutcomeFailed] != 2 {
		t.Errorf("flows %+v", st.Flows)
	}
	if st.RunsRead != len(runs) || st.Truncated {
		t.Errorf("read %d truncated %v", st.RunsRead, st.Truncated)
	}
}

func TestSummariseTwoFailuresAfterAWriteAreDegradedNotFailing(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	runs := []flow.Run{
		statusRun("f", connector.SystemERP2, flow.OutcomeFailed, t0),
		statusRun("f", connector.SystemERP2, flow.OutcomeFailed, t0.Add(-time.Minute)),
		statusRun("f", connector.SystemERP2, flow.OutcomeWritten, t0.Add(-2*time.Minute)),
	}
	st := flow.Summarise(t0.Add(-time.Hour), runs, false)
	if h := st.Systems[indexOf(st, connector.SystemERP2)].Health; h != flow.HealthDegraded {
		t.Fatalf("health %s, want degraded", h)
	}
	runs = append([]flow.Run{statusRun("f", connector.SystemERP2, flow.OutcomeRetrying, t0.Add(time.Minute))}, runs...)
	if h := flow.Summarise(t0.Add(-time.Hour), runs, false).Systems[indexOf(st, connector.SystemERP2)].Health; h != flow.HealthFailing {
		t.Fatalf("health %s after three failures in a row, want failing", h)
	}
}

func indexOf(st flow.Status, sys connector.System) int {
	for i, s := range st.Systems {
		if s.System == sys {
			return i
		}
	}
	return -1
}
