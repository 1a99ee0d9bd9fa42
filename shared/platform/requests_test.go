package platform

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
)

// Every answered request is one Requests line with its journey and status class, and
// the journey alone as a rollup: the service levels divide the first by the second.
func TestCountRequestsEmitsJourneyAndClass(t *testing.T) {
	var out bytes.Buffer
	prev := emf.Out
	emf.Out = &out
	defer func() { emf.Out = prev }()
	for _, status := range []int{http.StatusAccepted, http.StatusUnauthorized, http.StatusBadGateway} {
		h := countRequests(JourneyApprove, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/x", nil))
	}
	var classes []string
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var doc struct {
			Requests float64
			Journey  string `json:"journey"`
			Class    string `json:"class"`
			AWS      struct {
				CloudWatchMetrics []struct{ Dimensions [][]string }
			} `json:"_aws"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatal(err)
		}
		dims := doc.AWS.CloudWatchMetrics[0].Dimensions
		if doc.Requests != 1 || doc.Journey != JourneyApprove || len(dims) != 3 || len(dims[1]) != 1 || dims[1][0] != "journey" {
			t.Errorf("line %s", line)
		}
		classes = append(classes, doc.Class)
	}
	if len(classes) != 3 || classes[0] != "2xx" || classes[1] != "4xx" || classes[2] != "5xx" {
		t.Errorf("classes %v", classes)
	}
}

func TestJourney(t *testing.T) {
	byName := map[string]blueprint.Function{}
	for _, f := range blueprint.Functions {
		byName[f.Name] = f
	}
	for name, want := range map[string]string{
		blueprint.FuncIngest: JourneyIngest, blueprint.FuncProposalApprove: JourneyApprove,
		blueprint.FuncFinanceApprovalApprove: JourneyApprove, blueprint.FuncFlowEvent: JourneyFlowEvent,
	} {
		if got := Journey(byName[name]); got != want {
			t.Errorf("Journey(%s) = %s, want %s", name, got, want)
		}
	}
	reads := 0
	for _, f := range blueprint.Functions {
		if Journey(f) == JourneyConsoleRead {
			reads++
			if f.Route.Method != http.MethodGet {
				t.Errorf("%s is %s, counted as a read", f.Name, f.Route.Method)
			}
		}
	}
	if reads == 0 {
		t.Error("no console read")
	}
}
