package connector_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// startFake serves a fake of sys over loopback HTTP and returns a client for it. Backoff is
// shrunk to milliseconds so retry tests stay fast; mod adjusts the config further.
func startFake(t testing.TB, sys connector.System, mod func(*connector.Config)) (*fakesystem.Server, *connector.Client) {
	t.Helper()
	return startFakeBehind(t, sys, nil, mod)
}

// startFakeBehind is startFake with the fake behind front (nil: none), a gateway a test
// puts in the way.
func startFakeBehind(t testing.TB, sys connector.System, front func(http.Handler) http.Handler, mod func(*connector.Config)) (*fakesystem.Server, *connector.Client) {
	t.Helper()
	fake := fakesystem.New(sys)
	h := fake.Handler()
	if front != nil {
		h = front(h)
	}
	if sys == connector.SystemHostERP {
		h = netsuiteConformant(t, h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := connector.Config{AllowLoopback: true,
		System:      sys,
		BaseURL:     srv.URL + fakesystem.BasePath(sys),
		BaseBackoff: time.Millisecond,
		MaxBackoff:  5 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := connector.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return fake, c
}

// asError checks err is an *Error wrapping want and returns it.
func asError(t *testing.T, err, want error) *connector.Error {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want one wrapping %v", err, want)
	}
	var ce *connector.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *connector.Error", err)
	}
	return ce
}

func write(key string, fields map[string]any) connector.WriteRequest {
	return connector.WriteRequest{
		Entity: "customer", RecordID: "C-1", Fields: fields,
		IdempotencyKey: key, Origin: "syncassist",
	}
}
