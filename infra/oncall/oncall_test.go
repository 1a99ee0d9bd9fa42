package oncall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
)

// logOf writes EMF lines as the functions do (emf.Write), among plain log lines.
func logOf(t *testing.T, ms ...emf.Metric) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"level":"INFO","msg":"request","status":500}` + "\n")
	for _, m := range ms {
		if err := emf.Write(&b, m); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func request(journey, class string) emf.Metric {
	return emf.Metric{Time: time.Now(), Dimensions: []string{"journey", "class"}, Rollups: [][]string{{"journey"}},
		Counts: map[string]float64{platform.MetricRequests: 1}, Fields: map[string]any{"journey": journey, "class": class}}
}

func TestMeasureBurnsOnlyPastTheRate(t *testing.T) {
	var ms []emf.Metric
	for i := range 1000 {
		class := "2xx"
		if i < 15 { // 1.5 % of ingest answered 5xx: 15× a 0.1 % budget
			class = "5xx"
		}
		ms = append(ms, request(platform.JourneyIngest, class))
	}
	ms = append(ms, request(platform.JourneyApprove, "4xx"), request(platform.JourneyApprove, "2xx"))
	for _, ms_ := range []float64{1000, 130000} {
		ms = append(ms, emf.Metric{Time: time.Now(), Dimensions: []string{"class"}, Fields: map[string]any{"class": "x"},
			Counts: map[string]float64{"Diagnoses": 1, "DiagnosisLatency": ms_}})
	}
	byName := map[string]SLI{}
	for _, s := range Measure(ParseEMF(logOf(t, ms...))) {
		byName[s.Objective.Name] = s
	}
	ingest := byName[IngestAccepted.Name]
	if ingest.Total != 1000 || ingest.Bad != 15 || !ingest.Burns(Fast) || !ingest.Burns(Slow) {
		t.Errorf("ingest %+v, rate %g", ingest, ingest.BurnRate())
	}
	if a := byName[ApproveWriteBack.Name]; a.Total != 2 || a.Bad != 0 || a.Burns(Slow) {
		t.Errorf("approve %+v: a 4xx is no failure", a)
	}
	if d := byName[DiagnosisOnTime.Name]; d.Total != 2 || d.Bad != 1 || !d.Burns(Fast) {
		t.Errorf("diagnosis %+v", d)
	}
	if c := byName[ConsoleReads.Name]; c.Total != 0 || c.Burns(Slow) {
		t.Errorf("no console read burns nothing: %+v", c)
	}
	// 0.5 % bad is 5×: under both burns.
	var calm []emf.Metric
	for i := range 1000 {
		calm = append(calm, request(platform.JourneyIngest, map[bool]string{true: "5xx", false: "2xx"}[i < 5]))
	}
	if s := Measure(ParseEMF(logOf(t, calm...)))[0]; s.Burns(Slow) || s.Burns(Fast) {
		t.Errorf("5× burned: %g", s.BurnRate())
	}
}

func TestFiringMatchesThresholdsAndDimensions(t *testing.T) {
	approve := func(outcome string) emf.Metric {
		return emf.Metric{Time: time.Now(), Dimensions: []string{"feature", "outcome"}, Counts: map[string]float64{"Approves": 1},
			Fields: map[string]any{"feature": "finance", "outcome": outcome}}
	}
	loop := func(decision string) emf.Metric {
		return emf.Metric{Time: time.Now(), Dimensions: []string{"decision", "system"}, Counts: map[string]float64{governance.MetricGuardDecisions: 1},
			Fields: map[string]any{"decision": decision, "system": "crm"}}
	}
	ms := []emf.Metric{approve("written"), approve("failed")}
	for range 9 {
		ms = append(ms, loop(string(governance.DecisionLoopBlocked)), loop("written"))
	}
	got := Firing(ParseEMF(logOf(t, ms...)))
	if got[ApproveFailures.Name] != 1 || len(got) != 1 {
		t.Errorf("firing %v: want approve-failures only (9 loops are under 10)", got)
	}
	ms = append(ms, loop(string(governance.DecisionLoopBlocked)))
	if got := Firing(ParseEMF(logOf(t, ms...))); got[LoopDetectionSpike.Name] != 10 {
		t.Errorf("firing %v: want the 10th loop to fire", got)
	}
	if s := Summary(ParseEMF(logOf(t, ms...))); !strings.Contains(s, "approve-failures (1)") || !strings.Contains(s, "no objective burned") {
		t.Errorf("summary %q", s)
	}
}

// Every alarm's runbook is a file of the repository, and names the query it starts with.
func TestRunbooksExist(t *testing.T) {
	var paths []string
	for _, o := range Objectives {
		paths = append(paths, o.Runbook())
	}
	for _, k := range Kinds {
		paths = append(paths, k.Runbook())
	}
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Error(err)
			continue
		}
		named := false
		for _, q := range Queries {
			named = named || strings.Contains(string(b), q.FullName())
		}
		if !named {
			t.Errorf("%s names no saved query", p)
		}
	}
}

func TestQueriesCheck(t *testing.T) {
	for _, q := range Queries {
		if err := q.Check(); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []Query{{Name: "x", Text: "fields a\n| filtr b"}, {Name: "y", Text: "fields count(a"}, {Name: "z", Text: `filter a = "b`}} {
		if bad.Check() == nil {
			t.Errorf("%q passed", bad.Text)
		}
	}
}

func TestAlarmNames(t *testing.T) {
	if got := ApproveWriteBack.AlarmName(Fast, "Long"); got != "SloApproveWriteBackFastBurnLong" {
		t.Error(got)
	}
	if IngestAccepted.Budget() != 0.001 || Human(6*time.Hour) != "6 h" || Human(30*time.Minute) != "30 min" {
		t.Errorf("budget %g", IngestAccepted.Budget())
	}
}

// The flow objective reads the executor's decision latency: a run decided after 5
// minutes is bad, one at 5 minutes is not.
func TestMeasureFlowDecisions(t *testing.T) {
	var ms []emf.Metric
	for _, latency := range []time.Duration{time.Second, 5 * time.Minute, 6 * time.Minute} {
		ms = append(ms, emf.Metric{Time: time.Now(), Dimensions: []string{"outcome"}, Fields: map[string]any{"outcome": "written"},
			Counts: map[string]float64{flow.MetricFlowRuns: 1, flow.MetricFlowDecisionLatency: float64(latency.Milliseconds())}})
	}
	found := false
	for _, s := range Measure(ParseEMF(logOf(t, ms...))) {
		if s.Objective.Name == FlowEventDecided.Name {
			found = true
			if s.Total != 3 || s.Bad != 1 || !s.Burns(Fast) {
				t.Errorf("flow decisions %+v", s)
			}
		}
	}
	if !found {
		t.Error("no objective reads the flow decisions")
	}
}
