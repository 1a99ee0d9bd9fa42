package platform_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/platform"
)

// A known path asked with a method it is not served with answers 405 with Allow, not
// 404; a preflight from an allowed origin gets exactly the path's methods, PUT and PATCH
// included; an unknown path is still 404.
func TestMuxAnswersUnknownMethodsWith405(t *testing.T) {
	fns := []blueprint.Function{
		{Name: "get-thing", Route: &blueprint.Route{Method: "GET", Path: "/api/things/{id}", Auth: blueprint.AuthPublic}},
		{Name: "patch-thing", Route: &blueprint.Route{Method: "PATCH", Path: "/api/things/{id}", Auth: blueprint.AuthPublic}},
		{Name: "put-list", Route: &blueprint.Route{Method: "PUT", Path: "/api/things", Auth: blueprint.AuthPublic}},
		{Name: "console", Route: &blueprint.ConsoleRoute},
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	routes := platform.Routes{"get-thing": {Handler: ok}, "patch-thing": {Handler: ok}, "put-list": {Handler: ok}, "console": {Handler: ok}}
	b := &platform.Base{Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Config: platform.Config{CORSOrigins: []string{"https://erp.example.com"}}}
	h, err := b.Mux(fns, routes)
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path string, preflight bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, nil)
		if preflight {
			r.Header.Set("Origin", "https://erp.example.com")
			r.Header.Set("Access-Control-Request-Method", "PATCH")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for _, c := range []struct{ method, path, allow string }{
		{"DELETE", "/api/things/t1", "GET, PATCH"},
		{"POST", "/api/things/t1", "GET, PATCH"},
		{"GET", "/api/things", "PUT"},
		{"PROPFIND", "/api/things", "PUT"},
	} {
		w := do(c.method, c.path, false)
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != c.allow ||
			w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s = %d Allow %q %s, want 405 Allow %q", c.method, c.path, w.Code, w.Header().Get("Allow"), w.Body, c.allow)
		}
	}
	if w := do("PATCH", "/api/things/t1", false); w.Code != http.StatusOK {
		t.Errorf("PATCH a served route = %d", w.Code)
	}
	// The console's greedy GET makes no path a route: another method there is 404.
	if w := do("POST", "/api/nothing", false); w.Code != http.StatusNotFound || w.Header().Get("Allow") != "" {
		t.Errorf("unknown path = %d %v", w.Code, w.Header())
	}
	if w := do("OPTIONS", "/api/things/t1", true); w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Methods") != "GET, PATCH" {
		t.Errorf("preflight = %d %v", w.Code, w.Header())
	}
}

// The deployed HTTP API answers preflights with httpapi.CORSAllowMethods for every route
// (API Gateway has no per-route CORS): it lists every method a route is served with, so
// no route is unusable from an allowed origin.
func TestCORSAllowsEveryRoutesMethod(t *testing.T) {
	for _, f := range blueprint.HTTPFunctions() {
		if f.Route != nil && !slices.Contains(httpapi.CORSAllowMethods, f.Route.Method) {
			t.Errorf("%s is served with %s, which CORS does not allow", f.Route.Path, f.Route.Method)
		}
	}
}
