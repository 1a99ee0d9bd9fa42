package platform_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/unrouted"
)

// documented are the OpenAPI document's paths (a parameter filled in) and the methods each
// is documented with, in httpapi.CORSAllowMethods' order (the order Allow lists them): the
// methods of every documented template the path matches ("/proposals/bulk" is also a
// "/proposals/{id}", whose GET serves it).
func documented(t *testing.T) map[string][]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(apidoc.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	out := map[string][]string{}
	for path := range doc.Paths {
		concrete := param.ReplaceAllString(path, "p1")
		for _, m := range httpapi.CORSAllowMethods {
			for template, item := range doc.Paths {
				quoted := regexp.QuoteMeta(param.ReplaceAllString(template, "\x00"))
				match := regexp.MustCompile("^" + strings.ReplaceAll(quoted, "\x00", "[^/]+") + "$")
				if _, ok := item[strings.ToLower(m)]; ok && match.MatchString(concrete) && !slices.Contains(out[concrete], m) {
					out[concrete] = append(out[concrete], m)
				}
			}
		}
	}
	return out
}

func answer(h http.Handler, method, path string, preflight bool) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	if preflight {
		r.Header.Set("Origin", "https://erp.example.com")
		r.Header.Set("Access-Control-Request-Method", "POST")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func problemCode(w *httptest.ResponseRecorder) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	return p.Code
}

// The deployed API's $default route (unrouted.Handler, in the OpenAPI function) answers
// every request no gateway route takes as the local stack does: for each documented path
// and each method no route serves it with, the same status, Allow and problem code, and
// that is 405 with exactly the path's documented methods wherever a route serves the path
// (the console's greedy GET serves "/", "/{path}" and /api/version: 404 there, locally
// too). An unknown path is 404 problem+json in both.
func TestDeployedFallbackAnswersAsTheLocalStack(t *testing.T) {
	fns := blueprint.HTTPFunctions()
	stub := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	routes := platform.Routes{}
	gateway := http.NewServeMux() // the routes API Gateway matches before $default
	for _, f := range fns {
		routes[f.Name] = platform.Route{Handler: stub}
		gateway.Handle(f.Route.Pattern(), stub)
	}
	b := &platform.Base{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	local, err := b.Mux(fns, routes)
	if err != nil {
		t.Fatal(err)
	}
	deployed := unrouted.Handler(fns, map[string]http.Handler{blueprint.UnroutedFunction: stub})
	notAllowed := 0
	for path, methods := range documented(t) {
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"} {
			probe := httptest.NewRequest(m, path, nil)
			if _, p := gateway.Handler(probe); p != "" {
				continue // a route of its own (every GET: the console's greedy one at least)
			}
			l, d := answer(local, m, path, false), answer(deployed, m, path, false)
			if l.Code != d.Code || l.Header().Get("Allow") != d.Header().Get("Allow") || problemCode(l) != problemCode(d) ||
				d.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s %s: local %d Allow %q %s, deployed %d Allow %q %s", m, path,
					l.Code, l.Header().Get("Allow"), problemCode(l), d.Code, d.Header().Get("Allow"), problemCode(d))
				continue
			}
			if d.Code == http.StatusMethodNotAllowed {
				notAllowed++
				if got := d.Header().Get("Allow"); got != strings.Join(methods, ", ") {
					t.Errorf("%s %s: Allow %q, the document says %v", m, path, got, methods)
				}
			} else if !slices.Contains([]string{"/", "/p1", blueprint.VersionPath}, path) {
				t.Errorf("%s %s = %d, want 405: a route serves the path", m, path, d.Code)
			}
		}
	}
	if notAllowed == 0 {
		t.Fatal("no documented path answered 405")
	}
	for _, h := range []http.Handler{local, deployed} {
		if w := answer(h, "POST", "/api/no-such-route", false); w.Code != http.StatusNotFound || problemCode(w) != "route_not_found" {
			t.Errorf("an unknown path = %d %s", w.Code, w.Body)
		}
	}
}

// The fallback keeps the OpenAPI function's own route, and a CORS preflight that reaches
// it on a routed path is a 2xx (the gateway adds its CORS headers), never the 405 that
// would fail the browser's preflight; on an unknown path it stays 404.
func TestDeployedFallbackKeepsItsRouteAndPreflights(t *testing.T) {
	h := unrouted.Handler(blueprint.HTTPFunctions(), map[string]http.Handler{blueprint.UnroutedFunction: apidoc.Handler()})
	if w := answer(h, "GET", blueprint.OpenAPIRoute.Path, false); w.Code != http.StatusOK || !json.Valid(w.Body.Bytes()) {
		t.Errorf("GET %s = %d", blueprint.OpenAPIRoute.Path, w.Code)
	}
	if w := answer(h, "OPTIONS", "/api/settings/approval-policy", true); w.Code != http.StatusNoContent {
		t.Errorf("preflight on a routed path = %d %s", w.Code, w.Body)
	}
	if w := answer(h, "OPTIONS", "/api/no-such-route", true); w.Code != http.StatusNotFound {
		t.Errorf("preflight on an unknown path = %d", w.Code)
	}
	if w := answer(h, "OPTIONS", "/api/settings/approval-policy", false); w.Code != http.StatusMethodNotAllowed ||
		w.Header().Get("Allow") != "GET, PUT" {
		t.Errorf("OPTIONS (not a preflight) = %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
}

// As the OpenAPI function's main serves it, through API Gateway's payload 2.0 adapter: an
// event of the $default route (its routeKey, the request's own raw path) answers 405 with
// Allow, and its own route's event still gets the document.
func TestDeployedFallbackThroughTheLambdaAdapter(t *testing.T) {
	h := unrouted.Handler(blueprint.HTTPFunctions(), map[string]http.Handler{blueprint.UnroutedFunction: apidoc.Handler()})
	proxy := httpadapter.NewV2(h).ProxyWithContext
	event := func(routeKey, method, path string) events.APIGatewayV2HTTPRequest {
		var ev events.APIGatewayV2HTTPRequest
		ev.Version, ev.RouteKey, ev.RawPath = "2.0", routeKey, path
		ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.Path = method, path
		ev.Headers = map[string]string{"host": "api.example.com"}
		return ev
	}
	resp, err := proxy(context.Background(), event("$default", "DELETE", "/api/settings/approval-policy"))
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed || resp.Headers["Allow"] != "GET, PUT" ||
		resp.Headers["Content-Type"] != "application/problem+json" {
		t.Errorf("$default DELETE = %d %v %s (%v)", resp.StatusCode, resp.Headers, resp.Body, err)
	}
	resp, err = proxy(context.Background(), event(blueprint.OpenAPIRoute.Pattern(), "GET", blueprint.OpenAPIRoute.Path))
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(resp.Body, `"openapi"`) {
		t.Errorf("GET the document = %d (%v)", resp.StatusCode, err)
	}
}
