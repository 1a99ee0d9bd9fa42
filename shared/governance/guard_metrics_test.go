package governance_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp/dlptest"
	"github.com/syncassist/syncassist/shared/emf/emftest"
	"github.com/syncassist/syncassist/shared/governance"
)

func withMetrics(w *emftest.Lines) envOption {
	return func(deps *governance.Deps, _ *configs) { deps.Metrics = w }
}

// emfLine is what a GuardDecisions line must carry for CloudWatch to make it a metric.
type emfLine struct {
	AWS struct {
		Timestamp         int64
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	} `json:"_aws"`
	GuardDecisions float64
	Decision       string `json:"decision"`
	System         string `json:"system"`
	Tenant         string `json:"tenant"`
	Source         string `json:"source"`
	Entity         string `json:"entity"`
}

// Every guarded write is one GuardDecisions datapoint under the dimensions "decision" and
// "system" (the target), rolled up by decision.
func TestGuardCountsEveryDecision(t *testing.T) {
	t.Parallel()
	open := map[string]any{"status": "open", "priority": "high"}
	cases := []struct {
		name   string
		before []governance.WriteRequest // writes that set the scene
		write  governance.WriteRequest
		opts   []envOption
		want   governance.Decision
	}{
		{name: "written", write: req(hosterp, hosterp, "salesOrder", "SO-1", map[string]any{"status": "billed"}),
			want: governance.DecisionWritten},
		{name: "partial", write: req(hosterp, hosterp, "customer", "C-1", map[string]any{"creditLimit": 10, "email": "x"}),
			want: governance.DecisionPartial},
		{name: "dropped", write: req(hosterp, hosterp, "salesOrder", "SO-1", map[string]any{"trackingNumber": "1Z"}),
			want: governance.DecisionDropped},
		{name: "ownership rejected", write: req(crm, hosterp, "salesOrder", "SO-1", map[string]any{"status": "x"}),
			want: governance.DecisionOwnershipRejected},
		{name: "held", write: req(erp2, hosterp, "vendorBill", "VB-1", map[string]any{"amount": 5}),
			want: governance.DecisionHeld},
		{name: "loop blocked", before: []governance.WriteRequest{req(crm, hosterp, "ticket", "T-1", open)},
			write: req(hosterp, crm, "ticket", "T-1", open), want: governance.DecisionLoopBlocked},
		{name: "dlp blocked", write: req(crm, crm, "contact", "C-1", map[string]any{"note": "card " + dlptest.CardNumber}),
			want: governance.DecisionDLPBlocked},
		{name: "invalid", write: req(crm, crm, "contact", "C-1", nil), want: governance.DecisionInvalid},
		{name: "unknown system", write: req(crm, "mainframe", "contact", "C-1", map[string]any{"firstName": "Jane"}),
			want: governance.DecisionInvalid},
		{name: "not configured", opts: []envOption{withNotConfigured(crm)},
			write: req(crm, crm, "contact", "C-1", map[string]any{"firstName": "Jane"}), want: governance.DecisionNotConfigured},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := &emftest.Lines{}
			e := newEnv(t, append(c.opts, withMetrics(out))...)
			for _, r := range c.before {
				if _, err := e.write(operator("acme"), r); err != nil {
					t.Fatal(err)
				}
			}
			if c.write.Target.Known() {
				_, _ = e.write(operator("acme"), c.write)
			} else {
				// No fake system to seed: the guard refuses the request before any is asked.
				_, _ = e.guard.Write(context.Background(), operator("acme"), c.write)
			}

			got := out.All()
			if len(got) != len(c.before)+1 {
				t.Fatalf("%d lines for %d writes: %q", len(got), len(c.before)+1, got)
			}
			var l emfLine
			if err := json.Unmarshal([]byte(got[len(got)-1]), &l); err != nil {
				t.Fatalf("not JSON: %v: %s", err, got[len(got)-1])
			}
			m := l.AWS.CloudWatchMetrics
			if len(m) != 1 || m[0].Namespace != "SyncAssist" ||
				!reflect.DeepEqual(m[0].Dimensions, [][]string{{"decision", "system"}, {"decision"}, {}}) ||
				len(m[0].Metrics) != 1 || m[0].Metrics[0].Name != governance.MetricGuardDecisions || m[0].Metrics[0].Unit != "Count" {
				t.Fatalf("metric definition %+v", m)
			}
			if l.AWS.Timestamp != t0.UnixMilli() || l.GuardDecisions != 1 || l.Decision != string(c.want) ||
				l.Tenant != "acme" || l.Source != string(c.write.Source) || l.Entity != c.write.Entity {
				t.Fatalf("line %+v, want decision %s", l, c.want)
			}
			// The dimension takes only known systems: an invalid request's target is not one.
			wantSystem := string(c.write.Target)
			if !c.write.Target.Known() {
				wantSystem = "unknown"
			}
			if l.System != wantSystem {
				t.Fatalf("system %q, want %q", l.System, wantSystem)
			}
		})
	}
}
