package decisions

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// answers is a single-item route that answers each call with the next of its problems (nil:
// 200 with a row), counting the calls.
type answers struct {
	calls    atomic.Int32
	problems []*httpapi.Problem
	after    string
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(a.calls.Add(1)) - 1
	if n >= len(a.problems) || a.problems[n] == nil {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id":"se_1","status":"approved"}`))
		return
	}
	if a.after != "" {
		w.Header().Set("Retry-After", a.after)
	}
	httpapi.WriteProblem(w, r, a.problems[n])
}

func busyTarget() *httpapi.Problem {
	p := httpapi.NewProblem(http.StatusBadGateway, "write_back_failed", "hosterp: it was busy or could not be reached")
	p.Target = &httpapi.TargetFailure{System: "hosterp", Status: 429, Retryable: true}
	return p
}

func goneTarget() *httpapi.Problem {
	p := httpapi.NewProblem(http.StatusBadGateway, "write_back_failed", "hosterp: the record does not exist there")
	p.Target = &httpapi.TargetFailure{System: "hosterp", Status: 404, Retryable: false}
	return p
}

// A bulk item whose target was busy (the account's shared rate budget, or the vendor's own
// 429) is tried once more after a short wait inside the request, as the approver clicking
// Approve again would: the bulk's own items take the account's concurrency, and a refusal
// of that kind is no reason to report the item failed. One that cannot succeed by waiting
// is not tried again, nor one whose target asks for a long wait.
func TestBulkTriesABusyTargetOnceMore(t *testing.T) {
	defer func(w time.Duration) { bulkRetryWait = w }(bulkRetryWait)
	bulkRetryWait = time.Millisecond
	run := func(a *answers) BulkItem {
		r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/proposals/bulk", strings.NewReader("{}"))
		return bulkItem(r, a, "se_1", []byte(`{}`), "approved")
	}
	cases := []struct {
		name    string
		a       *answers
		calls   int32
		outcome string
	}{
		{"busy, then written", &answers{problems: []*httpapi.Problem{busyTarget()}}, 2, "approved"},
		{"busy twice", &answers{problems: []*httpapi.Problem{busyTarget(), busyTarget()}}, 2, "failed"},
		{"a record that does not exist", &answers{problems: []*httpapi.Problem{goneTarget()}}, 1, "failed"},
		{"busy for a minute", &answers{problems: []*httpapi.Problem{busyTarget()}, after: "60"}, 1, "failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			item := run(c.a)
			if got := c.a.calls.Load(); got != c.calls || item.Outcome != c.outcome {
				t.Errorf("%d calls, outcome %q (problem %+v); want %d calls, %q", got, item.Outcome, item.Problem, c.calls, c.outcome)
			}
		})
	}
}
