package connector_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// A write whose first attempt went unanswered (a gateway's 504, or no answer within the
// attempt's timeout) may still land: the system can commit it after the client's next
// read. Whatever the later attempts are told then, a 429 (NetSuite's concurrency limit
// while the first request still runs) or a refused connection, does not show that it did
// not, so the write's error stays the lost answer's: ErrUnavailable, MayHaveApplied, not
// Answered, with the later failure kept in Later for logs. The client used to return the
// last attempt's 429 or refused connection, which MayHaveApplied calls "not applied", and
// callers reported "nothing was written" while the ERP held the write.
func TestAnUnansweredAttemptOutlivesTheLaterAttemptsRefusals(t *testing.T) {
	t.Parallel()
	for _, sys := range []connector.System{connector.SystemHostERP, connector.SystemERP2} {
		for _, tc := range []struct {
			name string
			// first answers the write's first request; stop closes the listener.
			first func(w http.ResponseWriter, stop func())
			// later is the sentinel of the later attempts' failure.
			later error
		}{
			{"504 then 429", func(w http.ResponseWriter, _ func()) { w.WriteHeader(http.StatusGatewayTimeout) }, connector.ErrRateLimited},
			{"no answer then 429", func(w http.ResponseWriter, _ func()) {
				time.Sleep(400 * time.Millisecond) // past the client's 150ms attempt timeout
				w.WriteHeader(http.StatusGatewayTimeout)
			}, connector.ErrRateLimited},
			{"504 then a refused connection", func(w http.ResponseWriter, stop func()) {
				// Every later connection is refused: the listener closes, and this one with
				// the answer.
				stop()
				w.Header().Set("Connection", "close")
				w.WriteHeader(http.StatusGatewayTimeout)
			}, connector.ErrUnavailable},
		} {
			t.Run(string(sys)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				fake := fakesystem.New(sys)
				fake.Seed("customer", "C-1", map[string]any{"credit": 1})
				var (
					mu      sync.Mutex
					writes  int
					stopped bool
				)
				var srv *httptest.Server
				stop := func() {
					mu.Lock()
					defer mu.Unlock()
					if !stopped {
						stopped = true
						_ = srv.Listener.Close()
					}
				}
				var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet {
						fake.ServeHTTP(w, r)
						return
					}
					mu.Lock()
					writes++
					n := writes
					mu.Unlock()
					if n == 1 {
						tc.first(w, stop)
						return
					}
					w.WriteHeader(http.StatusTooManyRequests)
				})
				if sys == connector.SystemHostERP {
					h = netsuiteConformant(t, h)
				}
				srv = httptest.NewServer(h)
				t.Cleanup(srv.Close)
				c, err := connector.New(connector.Config{AllowLoopback: true, System: sys,
					BaseURL: srv.URL + fakesystem.BasePath(sys), Timeout: 150 * time.Millisecond,
					BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.CloseIdleConnections)

				_, err = c.Write(context.Background(), write("k-unanswered-"+strings.ReplaceAll(tc.name, " ", "-"), map[string]any{"credit": 2}))
				t.Logf("%v", err)
				ce := asError(t, err, connector.ErrUnavailable)
				switch {
				case !connector.MayHaveApplied(err) || connector.Answered(err):
					t.Fatalf("%v: MayHaveApplied %v, Answered %v; want a lost answer (true, false)", err, connector.MayHaveApplied(err), connector.Answered(err))
				case errors.Is(err, connector.ErrRateLimited):
					t.Fatalf("%v: errors.Is finds ErrRateLimited, which callers take for nothing written", err)
				case connector.ErrorKind(err) != "unavailable":
					t.Fatalf("%v: ErrorKind %q, want unavailable", err, connector.ErrorKind(err))
				case ce.Later == nil || !errors.Is(ce.Later, tc.later) || !strings.Contains(err.Error(), "; then: "):
					t.Fatalf("%v: Later = %v, want the later attempts' %v kept", err, ce.Later, tc.later)
				}
				mu.Lock()
				defer mu.Unlock()
				if writes < 1 || tc.later == connector.ErrUnavailable && writes != 1 {
					t.Fatalf("%d write requests reached the system", writes)
				}
			})
		}
	}
}

// Without an unanswered attempt a 429 is what it says: nothing was written.
func TestARateLimitedWriteWithoutAnUnansweredAttemptWasNotApplied(t *testing.T) {
	t.Parallel()
	limited := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	fake, c := startFakeBehind(t, connector.SystemERP2, limited, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	_, err := c.Write(context.Background(), write("k-limited", map[string]any{"credit": 2}))
	ce := asError(t, err, connector.ErrRateLimited)
	if connector.MayHaveApplied(err) || ce.Later != nil {
		t.Fatalf("%v: MayHaveApplied %v, Later %v; want a plain rate limit", err, connector.MayHaveApplied(err), ce.Later)
	}
}
