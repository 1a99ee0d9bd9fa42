package oncall

import (
	"bufio"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/platform"
)

// Line is one EMF line: the metrics it declares, with their values, and its other fields.
type Line struct {
	Metrics map[string]float64
	Fields  map[string]any
}

// ParseEMF reads the EMF lines of the service's namespace out of a log (other lines are
// skipped): what CloudWatch would turn into metrics.
func ParseEMF(log string) []Line {
	var lines []Line
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		text := sc.Text()
		if !strings.Contains(text, `"_aws"`) {
			continue
		}
		var doc map[string]any
		if json.Unmarshal([]byte(text), &doc) != nil {
			continue
		}
		if l, ok := emfLine(doc); ok {
			lines = append(lines, l)
		}
	}
	return lines
}

func emfLine(doc map[string]any) (Line, bool) {
	var meta struct {
		CloudWatchMetrics []struct {
			Namespace string
			Metrics   []struct{ Name string }
		}
	}
	raw, _ := json.Marshal(doc["_aws"])
	if json.Unmarshal(raw, &meta) != nil {
		return Line{}, false
	}
	l := Line{Metrics: map[string]float64{}, Fields: map[string]any{}}
	for _, d := range meta.CloudWatchMetrics {
		if d.Namespace != emf.Namespace {
			continue
		}
		for _, m := range d.Metrics {
			if v, ok := doc[m.Name].(float64); ok {
				l.Metrics[m.Name] = v
			}
		}
	}
	for k, v := range doc {
		if _, metric := l.Metrics[k]; !metric && k != "_aws" {
			l.Fields[k] = v
		}
	}
	return l, len(l.Metrics) > 0
}

func (l Line) matches(dims map[string]string) bool {
	for k, v := range dims {
		if fmt.Sprint(l.Fields[k]) != v {
			return false
		}
	}
	return true
}

// SLI is an objective's events in a drill.
type SLI struct {
	Objective Objective
	Total     float64
	Bad       float64
}

// BurnRate is the error ratio over the budget: 1 spends the budget exactly over Period.
func (s SLI) BurnRate() float64 {
	if s.Total == 0 {
		return 0
	}
	return s.Bad / s.Total / s.Objective.Budget()
}

// Burns says whether b fires: a drill is shorter than b's short window, so its lines
// are what both windows would hold.
func (s SLI) Burns(b Burn) bool { return s.Total > 0 && s.BurnRate() >= b.Rate }

// Measure computes each objective's events from the lines, as the stack's metric math
// does: Requests of the journey (class 5xx bad) or the latency metric (above the bound bad).
func Measure(lines []Line) []SLI {
	var out []SLI
	for _, o := range Objectives {
		s := SLI{Objective: o}
		for _, l := range lines {
			switch {
			case o.Journey != "":
				if n, ok := l.Metrics[platform.MetricRequests]; ok && l.matches(map[string]string{"journey": o.Journey}) {
					s.Total += n
					if l.matches(map[string]string{"class": "5xx"}) {
						s.Bad += n
					}
				}
			case o.LatencyMetric != "":
				if ms, ok := l.Metrics[o.LatencyMetric]; ok {
					s.Total++
					if ms > float64(o.LatencyBound.Milliseconds()) {
						s.Bad++
					}
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// Firing are the kinds built on the service's own metrics whose condition the lines meet
// (their sum reaches the threshold; a drill is shorter than the alarm's window), by name
// with the sum. ReconcileStopped fires on silence, which a drill cannot show.
func Firing(lines []Line) map[string]float64 {
	out := map[string]float64{}
	for _, k := range Kinds {
		if k.Metric == "" || k.Name == ReconcileStopped.Name {
			continue
		}
		var sum float64
		for _, l := range lines {
			if v, ok := l.Metrics[k.Metric]; ok && l.matches(k.Dims) {
				sum += v
			}
		}
		if sum >= k.Threshold {
			out[k.Name] = sum
		}
	}
	return out
}

// Summary is a drill's one-line verdict: each burning objective with its burn rate and
// the burns it trips, then the cause alarms that would fire.
func Summary(lines []Line) string {
	var parts []string
	for _, s := range Measure(lines) {
		var burns []string
		for _, b := range Burns {
			if s.Burns(b) {
				burns = append(burns, strings.ToLower(b.Name)+"→"+b.Topic)
			}
		}
		if len(burns) > 0 {
			parts = append(parts, fmt.Sprintf("%s burned %.0f× (%g of %g bad; %s)", s.Objective.Name, s.BurnRate(), s.Bad, s.Total,
				strings.Join(burns, ", ")))
		}
	}
	firing := Firing(lines)
	names := make([]string, 0, len(firing))
	for n := range firing {
		names = append(names, fmt.Sprintf("%s (%g)", n, firing[n]))
	}
	sort.Strings(names)
	if len(parts) == 0 {
		parts = append(parts, "no objective burned")
	}
	alarms := "none"
	if len(names) > 0 {
		alarms = strings.Join(names, ", ")
	}
	return strings.Join(parts, "; ") + ". Alarms from EMF: " + alarms + "."
}
