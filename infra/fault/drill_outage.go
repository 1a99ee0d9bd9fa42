package fault

import (
	"math"
	"time"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/platform"
)

// maxOutage bounds how long a kill drill keeps its emulator dead waiting for the answers
// its objective needs.
const maxOutage = 20 * time.Second

// ingest5xxNeeded is how many ingest answers 5xx a burst of posts needs for
// ingest-accepted to burn fast with a margin: twice the fast rate's share of the posts.
func ingest5xxNeeded(posts int) int {
	return int(math.Ceil(2 * oncall.Fast.Rate * oncall.IngestAccepted.Budget() * float64(posts)))
}

// holdOutage keeps an emulator dead for at least min and until the service has answered
// need ingest requests 5xx (counted from its EMF lines since logStart, as CloudWatch would),
// or maxOutage passed. A fixed half-second kill answered 10 of 210 posts 5xx in one run
// and 1 of 201 in the next (where it landed in the burst, and the SDK's own retries
// riding out a short outage), so the objective's burn depended on luck; an outage held
// until users saw it makes the drill's claim hold, and a broken Requests metric still
// fails it (the count never arrives, the burn is not seen).
func holdOutage(h *Harness, logStart int, min time.Duration, need int) time.Duration {
	start := time.Now()
	time.Sleep(min)
	for time.Since(start) < maxOutage && ingest5xx(h.Logs.From(logStart)) < need {
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// ingest5xx counts the ingest requests answered 5xx in log's EMF lines.
func ingest5xx(log string) int {
	n := 0.0
	for _, l := range oncall.ParseEMF(log) {
		if v, ok := l.Metrics[platform.MetricRequests]; ok && l.Fields["journey"] == platform.JourneyIngest && l.Fields["class"] == "5xx" {
			n += v
		}
	}
	return int(n)
}
