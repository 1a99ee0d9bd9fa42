package templatetests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/platform"
)

// alarmByID finds the OnCall stack's alarm (or composite) of a construct id (CDK appends
// an 8-character hash).
func (s *synthesized) alarmByID(t *testing.T, typ, id string) (string, obj) {
	t.Helper()
	var found []string
	var props obj
	for lid, r := range s.oncallResources(t, typ) {
		if strings.HasPrefix(lid, id) && len(lid) == len(id)+8 {
			found = append(found, lid)
			props = r["Properties"].(obj)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s %s: found %v", typ, id, found)
	}
	return found[0], props
}

// parameterOf says whether v is a Ref to a parameter of the nested stack that the parent
// passes as a Ref to its resource parentID.
func (s *synthesized) parameterOf(t *testing.T, v any, parentID string) bool {
	t.Helper()
	r, _ := v.(obj)
	name, _ := r["Ref"].(string)
	for _, nested := range s.resources(t, "AWS::CloudFormation::Stack", nil) {
		params, _ := nested["Properties"].(obj)["Parameters"].(obj)
		if p, ok := params[name]; ok {
			return fmt.Sprint(p) == fmt.Sprint(ref(parentID))
		}
	}
	return false
}

// Every objective has a fast and a slow burn, each the composite of a long and a short
// window at the workbook's rates and windows; the fast one pages, the slow one tickets.
func TestBurnRateAlarms(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		var page string
		for id := range s.oncallResources(t, "AWS::SNS::Topic") {
			page = id
		}
		ticket := s.topicID(t)
		if n := len(s.oncallResources(t, "AWS::CloudWatch::CompositeAlarm")); n != len(oncall.Objectives)*len(oncall.Burns) {
			t.Errorf("%d composites", n)
		}
		if n := len(s.oncallResources(t, "AWS::CloudWatch::Alarm")); n != 2*len(oncall.Objectives)*len(oncall.Burns) {
			t.Errorf("%d burn alarms", n)
		}
		for _, o := range oncall.Objectives {
			for _, b := range oncall.Burns {
				t.Run(o.Name+"/"+b.Name, func(t *testing.T) {
					var halves []string
					for _, w := range []struct {
						name   string
						period float64
					}{{"Long", b.Long.Seconds()}, {"Short", b.Short.Seconds()}} {
						id, props := s.alarmByID(t, "AWS::CloudWatch::Alarm", o.AlarmName(b, w.name))
						halves = append(halves, id)
						if props["Threshold"] != b.Rate || props["EvaluationPeriods"] != num(1) ||
							props["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || props["TreatMissingData"] != "notBreaching" {
							t.Errorf("%s: %v", id, props)
						}
						checkBurnMetrics(t, o, props["Metrics"].(arr), w.period)
					}
					_, comp := s.alarmByID(t, "AWS::CloudWatch::CompositeAlarm", o.AlarmName(b, ""))
					want := obj{"Fn::Join": arr{"", arr{`(ALARM("`, getAtt(halves[0], "Arn"), `") AND ALARM("`, getAtt(halves[1], "Arn"), `"))`}}}
					if fmt.Sprint(comp["AlarmRule"]) != fmt.Sprint(want) {
						t.Errorf("rule %v, want %v", comp["AlarmRule"], want)
					}
					for _, key := range []string{"AlarmActions", "OKActions"} {
						actions, _ := comp[key].(arr)
						ok := len(actions) == 1
						if ok && b.Topic == oncall.TopicPage {
							ok = fmt.Sprint(actions[0]) == fmt.Sprint(ref(page))
						} else if ok {
							ok = s.parameterOf(t, actions[0], ticket)
						}
						if !ok {
							t.Errorf("composite %s %v, want the %s topic", key, comp[key], b.Topic)
						}
					}
				})
			}
		}
	})
}

// checkBurnMetrics holds a burn alarm to the objective's series: the Requests of its
// journey (all, and class 5xx) or the latency's percentile rank at the bound, every
// metric over the window, and the budget in the expression.
func checkBurnMetrics(t *testing.T, o oncall.Objective, metrics arr, period float64) {
	t.Helper()
	var expr string
	stats := map[string]bool{}
	for _, m := range metrics {
		m := m.(obj)
		if e, ok := m["Expression"].(string); ok {
			expr = e
			continue
		}
		stat := m["MetricStat"].(obj)
		if stat["Period"] != period {
			t.Errorf("%s: period %v, want %v", m["Id"], stat["Period"], period)
		}
		metric := stat["Metric"].(obj)
		if metric["Namespace"] == "AWS/Lambda" {
			continue
		}
		stats[fmt.Sprint(metric["MetricName"], metric["Dimensions"], stat["Stat"])] = true
	}
	var want []string
	if o.Journey != "" {
		want = []string{
			fmt.Sprint(platform.MetricRequests, arr{obj{"Name": "class", "Value": "5xx"}, obj{"Name": "journey", "Value": o.Journey}}, "Sum"),
			fmt.Sprint(platform.MetricRequests, arr{obj{"Name": "journey", "Value": o.Journey}}, "Sum"),
		}
	} else {
		want = []string{fmt.Sprint(o.LatencyMetric, nil, fmt.Sprintf("PR(:%d)", o.LatencyBound.Milliseconds()))}
	}
	for _, w := range want {
		if !stats[w] {
			t.Errorf("no series %s in %v", w, stats)
		}
	}
	if len(stats) != len(want) || len(metrics) > 10 {
		t.Errorf("series %v (%d metrics)", stats, len(metrics))
	}
	if !strings.HasSuffix(expr, fmt.Sprintf("/ %g", o.Budget())) {
		t.Errorf("expression %q does not divide by the budget %g", expr, o.Budget())
	}
}

var runbookLink = regexp.MustCompile(`Runbook: ` + regexp.QuoteMeta(oncall.DefaultRunbookBase) + `(docs/runbooks/[a-z0-9-]+\.md)$`)

// Every alarm's description ends with its runbook's link, and the file is in the
// repository.
func TestEveryAlarmLinksARunbook(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		all := s.resources(t, "AWS::CloudWatch::Alarm", nil)
		for _, typ := range []string{"AWS::CloudWatch::Alarm", "AWS::CloudWatch::CompositeAlarm"} {
			for id, r := range s.oncallResources(t, typ) {
				all["OnCall/"+id] = r
			}
		}
		if len(all) < len(s.functions)+3*len(oncall.Objectives)*len(oncall.Burns) {
			t.Fatalf("%d alarms", len(all))
		}
		{
			for id, r := range all {
				desc, _ := r["Properties"].(obj)["AlarmDescription"].(string)
				m := runbookLink.FindStringSubmatch(desc)
				if m == nil {
					t.Errorf("%s: no runbook link in %q", id, desc)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
					t.Errorf("%s links %s: %v", id, m[1], err)
				}
				if len(desc) > 1024 {
					t.Errorf("%s: description of %d characters (CloudWatch takes 1024)", id, len(desc))
				}
			}
		}
	})
}

// The runbooks' queries are saved over the functions' log group, and each passes the
// syntax check.
func TestQueryDefinitions(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		group := s.logGroupID(t, s.functions[0].Name)
		saved := map[string]obj{}
		for _, r := range s.oncallResources(t, "AWS::Logs::QueryDefinition") {
			p := r["Properties"].(obj)
			saved[p["Name"].(string)] = p
		}
		if len(saved) != len(oncall.Queries) {
			t.Errorf("%d saved queries, want %d", len(saved), len(oncall.Queries))
		}
		for _, q := range oncall.Queries {
			if err := q.Check(); err != nil {
				t.Error(err)
			}
			p, ok := saved[s.stage+"-"+q.FullName()]
			names, _ := p["LogGroupNames"].(arr)
			if !ok || p["QueryString"] != q.Text || len(names) != 1 || !s.parameterOf(t, names[0], group) {
				t.Errorf("query %s saved as %v", q.Name, p)
			}
		}
	})
}

// The dashboard opens with the objectives: a budget-left tile per objective, then the
// burn rates, before any cause.
func TestDashboardShowsObjectivesFirst(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		widgets := s.dashboardWidgets(t)
		if len(widgets) < len(oncall.Objectives)+1 {
			t.Fatalf("%d widgets", len(widgets))
		}
		for i, o := range oncall.Objectives {
			w := widgets[i]
			if w.Type != "metric" || !strings.HasPrefix(w.Properties.Title, o.Title) || !strings.HasSuffix(w.Properties.Title, "budget left") ||
				w.Properties.Start != "-P30D" {
				t.Errorf("widget %d: %+v, want %s's budget left", i, w.Properties, o.Name)
			}
		}
		burn := widgets[len(oncall.Objectives)]
		body, _ := json.Marshal(burn)
		for _, o := range oncall.Objectives {
			if !strings.Contains(string(body), `"label":"`+o.Name+` burn rate"`) {
				t.Errorf("the burn widget has no %s: %s", o.Name, body)
			}
		}
		if !strings.HasPrefix(burn.Properties.Title, "Error-budget burn rate") {
			t.Errorf("widget %d is %q", len(oncall.Objectives), burn.Properties.Title)
		}
	})
}
