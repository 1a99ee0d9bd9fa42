package fault

import (
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/platform"
)

// A trip the EMF lines do not meet fails the row: the drill can fail.
func TestDrillFailsAMissedTrip(t *testing.T) {
	var log strings.Builder
	for i := range 10 {
		class := map[bool]string{true: "5xx", false: "2xx"}[i < 3]
		_ = emf.Write(&log, emf.Metric{Time: time.Now(), Dimensions: []string{"journey", "class"}, Rollups: [][]string{{"journey"}},
			Counts: map[string]float64{platform.MetricRequests: 1}, Fields: map[string]any{"journey": platform.JourneyIngest, "class": class}})
	}
	s := Scenario{Name: "x", Trips: []string{oncall.IngestAccepted.Name}}
	var row Row
	drill(&row, s, log.String())
	if row.Err != nil || !strings.Contains(row.Drill, "ingest-accepted burned 300×") {
		t.Errorf("met trip: %v, %q", row.Err, row.Drill)
	}
	s.Trips = append(s.Trips, oncall.ApproveFailures.Name, oncall.ApproveWriteBack.Name)
	row = Row{}
	drill(&row, s, log.String())
	if row.Err == nil || !strings.Contains(row.Err.Error(), "approve-failures did not trip") {
		t.Errorf("missed trip: %v", row.Err)
	}
	if got := missingTrips(s.Trips, oncall.ParseEMF(log.String())); len(got) != 2 {
		t.Errorf("missing %v", got)
	}
}

// The restart drill's outage waits for ingest 5xx answers counted from the EMF lines, and
// asks enough of them to burn fast twice over.
func TestIngest5xxCountsTheIngestJourneyOnly(t *testing.T) {
	var log strings.Builder
	for _, jc := range [][2]string{{platform.JourneyIngest, "5xx"}, {platform.JourneyIngest, "2xx"}, {platform.JourneyApprove, "5xx"},
		{platform.JourneyIngest, "5xx"}} {
		_ = emf.Write(&log, emf.Metric{Time: time.Now(), Dimensions: []string{"journey", "class"}, Rollups: [][]string{{"journey"}},
			Counts: map[string]float64{platform.MetricRequests: 1}, Fields: map[string]any{"journey": jc[0], "class": jc[1]}})
	}
	if n := ingest5xx(log.String()); n != 2 {
		t.Errorf("ingest 5xx %d, want 2", n)
	}
	need := ingest5xxNeeded(200)
	if s := (oncall.SLI{Objective: oncall.IngestAccepted, Total: 200 + float64(need), Bad: float64(need)}); need != 6 || !s.Burns(oncall.Fast) {
		t.Errorf("need %d for 200 posts: burn %g", need, s.BurnRate())
	}
}
