package connector_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/httpapi"
)

func TestPathSegmentsAreEscaped(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemERP2, nil)
	fake.Seed("sales order", "SO/1 2?x#y", map[string]any{"status": "open"})
	rec, err := c.Get(context.Background(), "sales order", "SO/1 2?x#y")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if rec.ID != "SO/1 2?x#y" || rec.Fields["status"] != "open" {
		t.Fatalf("Get = %#v", rec)
	}
	for _, bad := range [][2]string{{"", "1"}, {"customer", ""}, {"..", "1"}, {"customer", "."}} {
		_, err := c.Get(context.Background(), bad[0], bad[1])
		if ce := asError(t, err, connector.ErrValidation); ce.Attempts != 0 {
			t.Fatalf("Get(%q, %q) sent a request", bad[0], bad[1])
		}
	}
	if fake.Requests() != 1 {
		t.Fatalf("requests = %d, want 1", fake.Requests())
	}
}

func TestBaseURLWithPrefix(t *testing.T) {
	t.Parallel()
	// The local stack mounts every fake under its own prefix on one mux.
	mux := http.NewServeMux()
	fakes := map[connector.System]*fakesystem.Server{}
	for _, sys := range connector.Systems {
		fakes[sys] = fakesystem.New(sys)
		mux.Handle("/fake/"+string(sys)+"/", http.StripPrefix("/fake/"+string(sys), fakes[sys].Handler()))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for _, sys := range connector.Systems {
		fakes[sys].Seed("contact", "7", map[string]any{"n": 1})
		c, err := connector.New(connector.Config{AllowLoopback: true, System: sys, BaseURL: srv.URL + "/fake/" + string(sys) + fakesystem.BasePath(sys) + "/"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(context.Background(), "contact", "7"); err != nil {
			t.Fatalf("%s: Get through the mux: %v", sys, err)
		}
	}
}

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	req := write("approval-42", map[string]any{"credit": 5})
	first, err := c.Write(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Write(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || !second.Replayed {
		t.Fatalf("Replayed = %v then %v, want false then true", first.Replayed, second.Replayed)
	}
	if !reflect.DeepEqual(first.Record, second.Record) {
		t.Fatalf("replay answered %#v, first answer was %#v", second.Record, first.Record)
	}
	if n := fake.WriteCount(); n != 1 {
		t.Fatalf("applied writes = %d, want 1", n)
	}
}

func TestWriteRefusedLocally(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	ok := write("k", map[string]any{"credit": 2})
	cases := map[string]func(*connector.WriteRequest){
		"no key":            func(r *connector.WriteRequest) { r.IdempotencyKey = "" },
		"key with space":    func(r *connector.WriteRequest) { r.IdempotencyKey = "a b" },
		"key too long":      func(r *connector.WriteRequest) { r.IdempotencyKey = strings.Repeat("k", 256) },
		"no origin":         func(r *connector.WriteRequest) { r.Origin = "" },
		"origin with CRLF":  func(r *connector.WriteRequest) { r.Origin = "a\r\nX-Evil: 1" },
		"no fields":         func(r *connector.WriteRequest) { r.Fields = nil },
		"no entity":         func(r *connector.WriteRequest) { r.Entity = "" },
		"dot-dot id":        func(r *connector.WriteRequest) { r.RecordID = ".." },
		"quoted if-version": func(r *connector.WriteRequest) { r.IfVersion = `"1"` },
		"unencodable field": func(r *connector.WriteRequest) { r.Fields = map[string]any{"f": make(chan int)} },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			req := ok
			mutate(&req)
			_, err := c.Write(context.Background(), req)
			if ce := asError(t, err, connector.ErrValidation); ce.Attempts != 0 || ce.Op != connector.OpWrite {
				t.Fatalf("error = %#v", ce)
			}
		})
	}
	if fake.Requests() != 0 {
		t.Fatalf("requests = %d, want none", fake.Requests())
	}
}

func TestStatusMapping(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status    int
		want      error
		retryable bool
	}{
		{http.StatusBadRequest, connector.ErrValidation, false},
		{http.StatusUnauthorized, connector.ErrUnauthorized, false},
		{http.StatusForbidden, connector.ErrUnauthorized, false},
		{http.StatusNotFound, connector.ErrNotFound, false},
		{http.StatusMethodNotAllowed, connector.ErrValidation, false},
		{http.StatusRequestTimeout, connector.ErrUnavailable, false},
		{http.StatusConflict, connector.ErrConflict, false},
		{http.StatusGone, connector.ErrNotFound, false},
		{http.StatusPreconditionFailed, connector.ErrConflict, false},
		{http.StatusRequestEntityTooLarge, connector.ErrValidation, false},
		{http.StatusUnprocessableEntity, connector.ErrValidation, false},
		{http.StatusTooManyRequests, connector.ErrRateLimited, true},
		{http.StatusInternalServerError, connector.ErrUnavailable, false},
		{http.StatusNotImplemented, connector.ErrUnavailable, false},
		{http.StatusBadGateway, connector.ErrUnavailable, true},
		{http.StatusServiceUnavailable, connector.ErrUnavailable, true},
		{http.StatusGatewayTimeout, connector.ErrUnavailable, true},
	}
	for _, tc := range cases {
		for _, op := range []string{connector.OpGet, connector.OpWrite} {
			t.Run(fmt.Sprintf("%d/%s", tc.status, op), func(t *testing.T) {
				t.Parallel()
				fake, c := startFake(t, connector.SystemERP2, nil)
				fake.Seed("customer", "C-1", map[string]any{"credit": 1})
				fake.FailNext(10, tc.status)
				var err error
				if op == connector.OpGet {
					_, err = c.Get(context.Background(), "customer", "C-1")
				} else {
					_, err = c.Write(context.Background(), write("k", map[string]any{"credit": 2}))
				}
				ce := asError(t, err, tc.want)
				wantAttempts := 1
				if tc.retryable {
					wantAttempts = connector.DefaultMaxAttempts
				}
				if ce.Status != tc.status || ce.Code != "injected_failure" || ce.Retryable != tc.retryable ||
					ce.Op != op || ce.System != connector.SystemERP2 || ce.Attempts != wantAttempts {
					t.Fatalf("error = %#v", ce)
				}
				if got := fake.Requests(); got != wantAttempts {
					t.Fatalf("requests = %d, want %d", got, wantAttempts)
				}
				if fake.WriteCount() != 0 {
					t.Fatal("a refused write was applied")
				}
			})
		}
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemCRM, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	fake.FailNext(1, http.StatusBadRequest)
	_, err := c.Write(context.Background(), write("k", map[string]any{"credit": 2}))
	asError(t, err, connector.ErrValidation)
	if fake.Requests() != 1 || fake.WriteCount() != 0 {
		t.Fatalf("requests=%d writes=%d, want 1/0", fake.Requests(), fake.WriteCount())
	}
}

func TestRetryAfterBeyondCapIsLeftToTheCaller(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, func(cfg *connector.Config) { cfg.MaxRetryAfter = 500 * time.Millisecond })
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	fake.FailNextRetryAfter(1, http.StatusTooManyRequests, "120")
	waits := connector.RecordWaits(c)
	_, err := c.Get(context.Background(), "customer", "C-1")
	ce := asError(t, err, connector.ErrRateLimited)
	if !ce.Retryable || ce.RetryAfter != 120*time.Second || fake.Requests() != 1 {
		t.Fatalf("error = %#v, requests = %d", ce, fake.Requests())
	}
	if w := waits(); len(w) != 0 {
		t.Fatalf("the client waited %v although Retry-After exceeded its cap", w)
	}
}

// Error text goes to logs; what the system said about a record, and what we tried to
// write, may be customer data.
func TestErrorsDoNotQuoteBodiesOrValues(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	_, err := c.Get(context.Background(), "customer", "cust-8812-private")
	ce := asError(t, err, connector.ErrNotFound)
	if ce.Code != "NONEXISTENT_ID" {
		t.Fatalf("code = %q", ce.Code)
	}
	if msg := err.Error(); strings.Contains(msg, "cust-8812-private") || strings.Contains(msg, "was not found") {
		t.Fatalf("error text %q quotes the id or the system's message", msg)
	}
	fake.Seed("customer", "C-1", map[string]any{"card": "x"})
	fake.FailNext(1, http.StatusUnprocessableEntity)
	_, err = c.Write(context.Background(), write("k", map[string]any{"card": "4111111111111111"}))
	asError(t, err, connector.ErrValidation)
	if strings.Contains(err.Error(), "4111") {
		t.Fatalf("error text %q quotes a field value", err.Error())
	}
}

func TestUnusableAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		status  int
	}{
		{"larger than 1 MiB", func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte(" "), connector.MaxResponseBytes+10))
		}, http.StatusOK},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, http.StatusOK},
		{"redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://elsewhere.invalid/", http.StatusTemporaryRedirect)
		}, http.StatusTemporaryRedirect},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				requests++
				mu.Unlock()
				tc.handler(w, r)
			}))
			t.Cleanup(srv.Close)
			c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(context.Background(), "customer", "C-1")
			ce := asError(t, err, connector.ErrUnavailable)
			mu.Lock()
			defer mu.Unlock()
			if ce.Retryable || ce.Status != tc.status || requests != 1 {
				t.Fatalf("error = %#v, requests = %d", ce, requests)
			}
		})
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	const token = "tok-do-not-print"
	cases := map[string]connector.Config{
		"unknown system":   {System: "ledger", BaseURL: "https://x.test"},
		"no base URL":      {System: connector.SystemCRM},
		"ftp":              {System: connector.SystemCRM, BaseURL: "ftp://x.test"},
		"no host":          {System: connector.SystemCRM, BaseURL: "https:///path"},
		"credentials":      {System: connector.SystemCRM, BaseURL: "https://u:p@x.test"},
		"query":            {System: connector.SystemCRM, BaseURL: "https://x.test/?a=1"},
		"fragment":         {System: connector.SystemCRM, BaseURL: "https://x.test/#a"},
		"token with space": {System: connector.SystemCRM, BaseURL: "https://x.test", Token: token + " x"},
		"negative timeout": {System: connector.SystemCRM, BaseURL: "https://x.test", Timeout: -1},
		"negative retries": {System: connector.SystemCRM, BaseURL: "https://x.test", MaxAttempts: -1},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := connector.New(cfg)
			if !errors.Is(err, connector.ErrInvalidConfig) {
				t.Fatalf("New = %v, want ErrInvalidConfig", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Fatalf("error %q quotes the token", err)
			}
		})
	}
	if _, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemCRM, BaseURL: "https://x.test/base/"}); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
}

func TestConfigDoesNotPrintToken(t *testing.T) {
	t.Parallel()
	cfg := connector.Config{AllowLoopback: true, System: connector.SystemCRM, BaseURL: "https://x.test", Token: "tok-do-not-print"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("connector", "config", cfg)
	for _, out := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), logged.String()} {
		if strings.Contains(out, "tok-do-not-print") {
			t.Fatalf("token printed: %s", out)
		}
	}
}

// Every call carries the correlation id of the work it belongs to, so the target's logs can
// be matched with the service's.
func TestCallsCarryTheCorrelationID(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemCRM)
	fake.Seed("contact", "7", map[string]any{"n": 1})
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get(httpapi.HeaderCorrelationID))
		fake.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemCRM, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := httpapi.WithCorrelation(context.Background(), slog.New(slog.DiscardHandler), "corr-to-the-crm")
	if _, err := c.Get(ctx, "contact", "7"); err != nil {
		t.Fatal(err)
	}
	if got.Load() != "corr-to-the-crm" {
		t.Fatalf("X-Correlation-Id %v", got.Load())
	}
}

// A local stage's client reaches its fakes on loopback and nothing else: a base URL on the
// metadata address (or a private one) is refused at connect time, as in production.
func TestLocalClientReachesLoopbackOnly(t *testing.T) {
	for _, base := range []string{"http://169.254.169.254", "http://10.0.0.1:8080", "http://[64:ff9b::a9fe:a9fe]"} {
		c, err := connector.New(connector.Config{System: connector.SystemCRM, BaseURL: base, AllowLoopback: true,
			MaxAttempts: 1, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(context.Background(), "contact", "C-1"); !errors.Is(err, connector.ErrInvalidConfig) {
			t.Errorf("GET through %s with AllowLoopback: %v, want ErrInvalidConfig (blocked)", base, err)
		}
	}
}
