package fault

import (
	"slices"

	"github.com/syncassist/syncassist/infra/oncall"
)

// drill reads the EMF lines the scenario's functions printed (log, everything written
// since it started) as CloudWatch would, reports which objectives burned and which alarms
// built on those metrics would fire, and fails the row when one of the scenario's Trips
// did not: a change that renames a metric, drops a dimension or moves a threshold out of
// the fault's reach fails here, not at 3 a.m.
func drill(row *Row, s Scenario, log string) {
	lines := oncall.ParseEMF(log)
	row.Drill = oncall.Summary(lines)
	for _, name := range missingTrips(s.Trips, lines) {
		row.failf("drill: %s did not trip (%s)", name, row.Drill)
	}
}

// missingTrips are the trips the lines do not set off: an objective trips when it burns
// fast, a kind when its condition is met.
func missingTrips(trips []string, lines []oncall.Line) []string {
	tripped := map[string]bool{}
	for _, s := range oncall.Measure(lines) {
		tripped[s.Objective.Name] = s.Burns(oncall.Fast)
	}
	for name := range oncall.Firing(lines) {
		tripped[name] = true
	}
	var missing []string
	for _, t := range trips {
		if !tripped[t] {
			missing = append(missing, t)
		}
	}
	slices.Sort(missing)
	return missing
}
