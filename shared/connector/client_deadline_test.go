package connector_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// The client under slow, absent and unauthorised systems, and callers' deadlines.

// Each attempt's timeout covers its dial, its request and the answer. At 50 ms a loaded
// machine (CI's race lane beside the browser tests, run 167) timed an attempt out before
// its request reached the fake: 2 attempts, 1 request counted. The fake holds its answer
// for a minute (it stops waiting when the client goes), so the only way an attempt ends
// is its timeout, however slow the machine.
func TestTimeout(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemERP2, func(cfg *connector.Config) {
		cfg.Timeout = 500 * time.Millisecond
		cfg.MaxAttempts = 2
	})
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	fake.Delay(time.Minute)
	_, err := c.Get(context.Background(), "customer", "C-1")
	ce := asError(t, err, connector.ErrUnavailable)
	// On a loaded machine the fake's handler may not have counted the second request when
	// the client gives up, so wait for it to arrive rather than read at once.
	for deadline := time.Now().Add(5 * time.Second); fake.Requests() < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !ce.Retryable || ce.Status != 0 || ce.Attempts != 2 || fake.Requests() != 2 {
		t.Fatalf("error = %#v, requests = %d", ce, fake.Requests())
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: addr, BaseBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "customer", "C-1")
	ce := asError(t, err, connector.ErrUnavailable)
	if !errors.Is(err, syscall.ECONNREFUSED) || !ce.Retryable || ce.Attempts != 3 {
		t.Fatalf("error = %#v", ce)
	}
}

func TestDeadlineShorterThanBackoffStopsRetrying(t *testing.T) {
	t.Parallel()
	cases := map[string]func(*fakesystem.Server){
		"backoff":     func(f *fakesystem.Server) { f.FailNext(5, http.StatusServiceUnavailable) },
		"retry-after": func(f *fakesystem.Server) { f.FailNextRetryAfter(5, http.StatusServiceUnavailable, "3600") },
	}
	for name, fail := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake, c := startFake(t, connector.SystemHostERP, func(cfg *connector.Config) {
				// Waits far longer than the deadline; no timing of the machine's matters.
				cfg.BaseBackoff, cfg.MaxBackoff, cfg.MaxRetryAfter = time.Hour, time.Hour, 2*time.Hour
			})
			// The wait is the whole ceiling, so the test does not depend on the draw.
			connector.SetJitter(c, func(ceiling time.Duration) time.Duration { return ceiling })
			fake.Seed("customer", "C-1", map[string]any{"credit": 1})
			fail(fake)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := c.Write(ctx, write("k", map[string]any{"credit": 2}))
			ce := asError(t, err, connector.ErrUnavailable)
			if ce.Status != http.StatusServiceUnavailable || ce.Attempts != 1 || fake.Requests() != 1 {
				t.Fatalf("error = %#v, requests = %d", ce, fake.Requests())
			}
			// It gave up at once: the deadline had not come (it would have, waiting).
			if ctx.Err() != nil {
				t.Fatal("the client waited for a retry that could not finish before the deadline")
			}
		})
	}
}

// The caller's deadline passes while the ERP is answering: the error says so and nothing
// is retried. The deadline passes when the test says, once the request has arrived (a
// timed deadline failed under load, before the request was even sent).
func TestContextEndsDuringAttempt(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			close(arrived)
		}
		<-r.Context().Done() // answers only when the caller gives up
	}))
	t.Cleanup(srv.Close)
	c, err := connector.New(connector.Config{System: connector.SystemHostERP, AllowLoopback: true,
		BaseURL: srv.URL + fakesystem.BasePath(connector.SystemHostERP), BaseBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &deadlineOnSignal{Context: context.Background(), done: make(chan struct{})}
	go func() {
		<-arrived
		close(ctx.done)
	}()
	_, err = c.Get(ctx, "customer", "C-1")
	asError(t, err, connector.ErrUnavailable)
	if !errors.Is(err, context.DeadlineExceeded) || requests.Load() != 1 {
		t.Fatalf("error = %v, requests = %d; want the deadline as cause and no retry", err, requests.Load())
	}
}

// deadlineOnSignal is a context whose deadline passes when done is closed.
type deadlineOnSignal struct {
	context.Context
	done chan struct{}
}

func (c *deadlineOnSignal) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (c *deadlineOnSignal) Done() <-chan struct{}       { return c.done }
func (c *deadlineOnSignal) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	const secret = "tok-3f9a1c-secret"
	cases := []struct {
		name  string
		token string
		want  error
	}{
		{"no token", "", connector.ErrUnauthorized},
		{"wrong token", "tok-wrong", connector.ErrUnauthorized},
		{"right token", secret, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake, c := startFake(t, connector.SystemCRM, func(cfg *connector.Config) { cfg.Token = tc.token })
			fake.RequireToken(secret)
			fake.Seed("customer", "C-1", map[string]any{"credit": 1})
			_, err := c.Get(context.Background(), "customer", "C-1")
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				return
			}
			ce := asError(t, err, tc.want)
			if ce.Status != http.StatusUnauthorized || ce.Retryable || fake.Requests() != 1 {
				t.Fatalf("error = %#v, requests = %d", ce, fake.Requests())
			}
			if strings.Contains(err.Error(), tc.token) && tc.token != "" {
				t.Fatal("the error quotes the token")
			}
		})
	}
}
