// Package unrouted answers the requests no route serves, alike in the local stack and in
// the deployed API (issue 36 §3): 405 method_not_allowed with Allow on a path the routes
// serve with other methods (RFC 9110 §15.5.6), 404 route_not_found on any other. The local
// stack's ServeMux (platform.Base.Mux) answers through Allow; the deployed API's $default
// route reaches Handler, which builds the same ServeMux of the blueprint's routes. It links
// only the blueprint and httpapi, so the small function behind $default stays small.
package unrouted

import (
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// CatchAlls are the patterns that answer what no route does: the 404 of unknown routes,
// and the console's greedy GET of every other path (its 404 for unknown API paths
// included). Neither makes a path a route.
var CatchAlls = []string{"/", blueprint.ConsoleRoute.Pattern()}

// Methods are the methods mux's routes serve r's path with.
func Methods(mux *http.ServeMux) httpapi.Methods { return httpapi.MuxMethods(mux, CatchAlls...) }

// Allow serves next, except that a request only a catch-all of mux would answer, on a path
// mux's routes serve with other methods, is 405 with Allow, not 404: the route exists.
func Allow(mux *http.ServeMux, next http.Handler) http.Handler {
	methods := Methods(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, p := mux.Handler(r); slices.Contains(CatchAlls, p) {
			if allow := methods(r); len(allow) > 0 {
				notAllowed(w, r, allow)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// NotFound is the 404 of a path no route serves.
func NotFound(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "route_not_found",
		"No route "+r.Method+" "+strings.TrimSpace(r.URL.Path)+"."))
}

func notAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	w.Header().Set("Allow", strings.Join(allow, ", "))
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusMethodNotAllowed, "method_not_allowed",
		r.Method+" is not served on "+strings.TrimSpace(r.URL.Path)+"; it is served with "+strings.Join(allow, ", ")+"."))
}

// Handler is the deployed API's $default route: what API Gateway routes to no function.
// It answers through Allow over a ServeMux of fns' route patterns, as the local stack
// does; own are the handlers of the function behind $default (its own route keeps its
// answer there, HEAD included).
//
// Only what no gateway route matches arrives here. A route key names one method
// ("GET /pets"; API Gateway's route keys: an assumption that HEAD does not match a GET
// key), so a HEAD of another function's GET route arrives, and, served by no function
// here, answers 405 with Allow (where the local ServeMux serves it as the GET).
func Handler(fns []blueprint.Function, own map[string]http.Handler) http.Handler {
	mux := http.NewServeMux()
	methods := Methods(mux)
	elsewhere := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served := methods(r); len(served) > 0 {
			notAllowed(w, r, served)
			return
		}
		NotFound(w, r) // only the console's greedy GET matched
	})
	for _, f := range fns {
		if f.Route == nil {
			continue
		}
		h := own[f.Name]
		if h == nil {
			h = elsewhere
		}
		mux.Handle(f.Route.Pattern(), h)
	}
	mux.HandleFunc("/", NotFound)
	allow := Allow(mux, mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// With CORS configured, API Gateway answers preflights itself, "even if there isn't
		// an OPTIONS route configured", yet it also says $default "catches requests for all
		// methods … including OPTIONS requests" (where $default has an authorizer; ours has
		// none): https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html.
		// Should a preflight arrive all the same, a 2xx keeps it working: the gateway puts
		// its configured CORS headers on an integration's answer (and ignores the
		// integration's own).
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" && len(methods(r)) > 0 {
			w.Header().Set("Allow", strings.Join(methods(r), ", "))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		allow.ServeHTTP(w, r)
	})
}
