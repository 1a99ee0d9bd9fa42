package platform

import (
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// MetricRequests counts answered requests by user journey and status class: the service
// levels of docs/operations.md divide its class=5xx series by the journey's total. It is
// counted here, per route, because API Gateway's own metrics do not say which route a 5xx
// came from (per-route metrics need detailed metrics, billed per route).
const MetricRequests = "Requests"

// The journeys a request belongs to (the dimension "journey" of MetricRequests).
const (
	JourneyIngest      = "ingest"
	JourneyApprove     = "approve"
	JourneyFlowEvent   = "flow-event"
	JourneyConsoleRead = "console-read"
	JourneyOther       = "other"
)

// Journey is the user journey a function's route serves: the ERP's webhook, an approve
// (whose answer carries the write-back's), a source system's flow event, a console read
// (every other GET), or another write.
func Journey(f blueprint.Function) string {
	switch {
	case f.Name == blueprint.FuncIngest:
		return JourneyIngest
	case f.Name == blueprint.FuncProposalApprove || f.Name == blueprint.FuncFinanceApprovalApprove ||
		f.Name == blueprint.FuncGovernanceApprove:
		return JourneyApprove
	case f.Name == blueprint.FuncFlowEvent:
		return JourneyFlowEvent
	case f.Route != nil && f.Route.Method == http.MethodGet:
		return JourneyConsoleRead
	}
	return JourneyOther
}

// StatusClass is the class dimension of a status: "2xx", "4xx" or "5xx" (1xx and 3xx
// count as 2xx: nothing failed).
func StatusClass(status int) string {
	switch {
	case status >= 500:
		return "5xx"
	case status >= 400:
		return "4xx"
	}
	return "2xx"
}

// countRequests emits one MetricRequests datapoint per answered request, with the
// journey alone as a rollup (the objective's denominator). The request is the
// invocation: the metrics its handler emits are collected and written with this one in
// as few EMF lines as they fit (emf.Collect).
func countRequests(journey string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &httpapi.StatusRecorder{ResponseWriter: w}
		// Deferred first, so it runs last: after the count below, and on a panic, which
		// the count's defer re-raises.
		defer emf.Collect(r.Context()).Flush()
		defer func() {
			// A panic is answered 500 by httpapi.Instrument around the mux: count it so.
			status := rec.Status
			if v := recover(); v != nil {
				emitRequest(journey, http.StatusInternalServerError)
				panic(v)
			}
			emitRequest(journey, status)
		}()
		next.ServeHTTP(rec, r)
	})
}

func emitRequest(journey string, status int) {
	if status == 0 {
		status = http.StatusOK
	}
	emf.Emit(emf.Metric{Time: time.Now(), Dimensions: []string{"journey", "class"}, Rollups: [][]string{{"journey"}},
		Counts: map[string]float64{MetricRequests: 1},
		Fields: map[string]any{"journey": journey, "class": StatusClass(status)}})
}
