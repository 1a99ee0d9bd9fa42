package connector_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
)

// A write whose read before the write (read-compare-write) got a gateway's 504 sent
// nothing: the error is still a lost answer's kind (ErrUnavailable, MayHaveApplied, as a
// 504 says), but WriteSent tells the caller that no request of the write went out, so
// nothing of it can be in the record. A governance release used to take it for a write
// that may have landed and leave its approval unsettled for good.
func TestAWriteWhoseReadFailedWasNotSent(t *testing.T) {
	t.Parallel()
	var writes atomic.Int32
	front := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.WriteHeader(http.StatusGatewayTimeout)
				return
			}
			writes.Add(1)
			h.ServeHTTP(w, r)
		})
	}
	fake, c := startFakeBehind(t, connector.SystemERP2, front, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	_, err := c.Write(context.Background(), write("k-read-504", map[string]any{"credit": 2}))
	asError(t, err, connector.ErrUnavailable)
	if connector.WriteSent(err) || writes.Load() != 0 {
		t.Fatalf("%v: WriteSent %v with %d write requests; want false, none", err, connector.WriteSent(err), writes.Load())
	}
}

// A write whose own request went unanswered was sent, whatever the later attempts were
// told; and the later 429's Retry-After is the error's RetryAfter (a wait hint for the
// next attempt: delivery.Deferred, a retry's RetryAfter), though the error stays the lost
// answer's. It used to keep the unanswered attempt's RetryAfter (none), and the vendor's
// wait was lost in Later.
func TestAnUnansweredWriteWasSentAndKeepsTheLaterWait(t *testing.T) {
	t.Parallel()
	var writes atomic.Int32
	front := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				h.ServeHTTP(w, r)
				return
			}
			if writes.Add(1) == 1 {
				w.WriteHeader(http.StatusGatewayTimeout)
				return
			}
			w.Header().Set("Retry-After", "120") // past MaxRetryAfter: the caller schedules it
			w.WriteHeader(http.StatusTooManyRequests)
		})
	}
	fake, c := startFakeBehind(t, connector.SystemERP2, front, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	_, err := c.Write(context.Background(), write("k-unanswered-wait", map[string]any{"credit": 2}))
	ce := asError(t, err, connector.ErrUnavailable)
	switch {
	case !connector.WriteSent(err) || !connector.MayHaveApplied(err):
		t.Fatalf("%v: WriteSent %v, MayHaveApplied %v; want both", err, connector.WriteSent(err), connector.MayHaveApplied(err))
	case ce.Later == nil:
		t.Fatalf("%v: no later failure kept", err)
	case ce.RetryAfter != 120*time.Second:
		t.Fatalf("%v: RetryAfter %v, want the later 429's 2m0s", err, ce.RetryAfter)
	case delivery.Deferred(err) != 120*time.Second:
		t.Fatalf("%v: delivery.Deferred %v, want 2m0s", err, delivery.Deferred(err))
	}
}
