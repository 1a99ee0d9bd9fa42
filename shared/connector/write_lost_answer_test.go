package connector_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// A write whose answer is lost (the system applied it, then answered after the client's
// timeout) is not sent again: the next try reads the record first, finds the values in
// place and reports the write done — once applied, not Replayed (this call's own request
// put the values there), and not a conflict with the version that request changed. The
// client used to resend the PATCH itself, so a slow system applied every such write twice
// (seen as a second ERP write under 20 concurrent approves on a loaded machine).
func TestWriteWhoseAnswerWasLostIsAppliedOnce(t *testing.T) {
	t.Parallel()
	for _, sys := range []connector.System{connector.SystemHostERP, connector.SystemERP2} {
		t.Run(string(sys), func(t *testing.T) {
			t.Parallel()
			fake, c := startFake(t, sys, func(cfg *connector.Config) { cfg.Timeout = 200 * time.Millisecond })
			fake.Seed("customer", "C-1", map[string]any{"credit": 1})
			fake.DelayNext(1, 0)                    // the write's read answers at once
			fake.DelayNext(1, 600*time.Millisecond) // the PATCH is applied, its answer comes too late
			res, err := c.Write(context.Background(), write("k-lost", map[string]any{"credit": 2}))
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			if got := fake.WriteCount(); got != 1 {
				t.Fatalf("%d writes applied, want 1: %+v", got, fake.Writes())
			}
			if res.Replayed || fmt.Sprint(res.Record.Fields["credit"]) != "2" {
				t.Fatalf("result %+v, want the record with credit 2, not Replayed", res)
			}
		})
	}
}

// A write whose first attempt met a gateway's 504 and whose second got the system's own
// 503 is not Answered: the first request may still be committing behind the gateway, so a
// read that does not find the values does not say the write failed.
func TestAWriteWithAnUnansweredAttemptIsNotAnswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		statuses []int
		answered bool
	}{
		{"504 then 503", []int{http.StatusGatewayTimeout, http.StatusServiceUnavailable}, false},
		{"503 then 500", []int{http.StatusServiceUnavailable, http.StatusInternalServerError}, true},
		{"a CDN's 524", []int{524}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A gateway answers each PATCH with the next status and never passes it on; reads pass.
			var mu sync.Mutex
			next := tc.statuses
			gateway := func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					var status int
					if r.Method == http.MethodPatch && len(next) > 0 {
						status, next = next[0], next[1:]
					}
					mu.Unlock()
					if status != 0 {
						w.WriteHeader(status)
						return
					}
					h.ServeHTTP(w, r)
				})
			}
			fake, c := startFakeBehind(t, connector.SystemERP2, gateway, func(cfg *connector.Config) { cfg.MaxAttempts = len(tc.statuses) })
			fake.Seed("customer", "C-1", map[string]any{"credit": 1})
			_, err := c.Write(context.Background(), write("k-unanswered-"+strconv.Itoa(len(tc.statuses))+"-"+strconv.Itoa(tc.statuses[0]), map[string]any{"credit": 2}))
			if !connector.MayHaveApplied(err) || connector.Answered(err) != tc.answered {
				t.Fatalf("%v: MayHaveApplied %v, Answered %v, want %v", err, connector.MayHaveApplied(err), connector.Answered(err), tc.answered)
			}
		})
	}
}
