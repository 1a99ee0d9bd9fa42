package platform

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/emf/emftest"
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

// A request's metrics are written with its Requests count in as few lines as they fit,
// the same datapoints as one line each, when the handler answers and when it panics.
func TestCountRequestsPacksTheRequestsMetrics(t *testing.T) {
	// Requests is stamped with the clock, and a minute's edge would split the document.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 2*time.Second {
		time.Sleep(left)
	}
	now := time.Now()
	handlerMetrics := []emf.Metric{
		{Time: now, Counts: map[string]float64{"Approves": 1}, Dimensions: []string{"feature", "outcome"},
			Fields: map[string]any{"feature": "syncerror", "outcome": "written", "tenant": "t1"}},
		{Time: now, Counts: map[string]float64{"Learned": 1}, Dimensions: []string{"feature", "verdict"},
			Fields: map[string]any{"feature": "syncerror", "verdict": "approved", "tenant": "t1"}},
		{Time: now, Counts: map[string]float64{"Resolved": 1}, Dimensions: []string{"feature", "class"},
			Fields: map[string]any{"feature": "syncerror", "class": "value", "tenant": "t1"}},
	}
	for _, tc := range []struct {
		name  string
		panic bool
		class string
	}{{"answered", false, "2xx"}, {"panicked", true, "5xx"}} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			prev := emf.Out
			emf.Out = &out
			defer func() { emf.Out = prev }()
			h := countRequests(JourneyApprove, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for _, m := range handlerMetrics {
					emf.Emit(m)
				}
				if tc.panic {
					panic("handler failed")
				}
				w.WriteHeader(http.StatusOK)
			}))
			func() {
				defer func() { _ = recover() }() // httpapi.Instrument's, around the mux
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/x", nil))
			}()
			var alone bytes.Buffer
			for _, m := range handlerMetrics {
				_ = emf.Write(&alone, m)
			}
			emitRequestTo(t, &alone, tc.class)
			want, _, _ := emftest.Parse(alone.Bytes())
			got, docs, err := emftest.Parse(out.Bytes())
			// Requests's class (2xx, 5xx) is not Resolved's (value): two lines, not four.
			if err != nil || docs != 2 || !slices.Equal(got, want) {
				t.Fatalf("%d lines %q, want 2 lines of %q (%v)", docs, got, want, err)
			}
		})
	}
}

// emitRequestTo writes the Requests line of a request answered in class to b.
func emitRequestTo(t *testing.T, b *bytes.Buffer, class string) {
	t.Helper()
	prev := emf.Out
	emf.Out = b
	defer func() { emf.Out = prev }()
	emitRequest(JourneyApprove, map[string]int{"2xx": http.StatusOK, "5xx": http.StatusInternalServerError}[class])
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
