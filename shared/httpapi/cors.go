package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// What a browser on another allowed origin may send and read. Bearer tokens only: no
// cookies, so no Access-Control-Allow-Credentials. The webhook headers are absent on
// purpose: browsers never sign webhooks. CORSAllowMethods are every method a route
// serves: the deployed HTTP API answers preflights itself with one list for every route
// (API Gateway has no per-route CORS), while CORS here answers each path's own methods.
var (
	CORSAllowMethods  = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	CORSAllowHeaders  = []string{"authorization", "content-type", "x-embedded-context-id", "x-correlation-id"}
	CORSExposeHeaders = []string{"x-correlation-id", "retry-after", "location"}
)

// CORSMaxAgeSeconds is how long a browser may cache a preflight answer.
const CORSMaxAgeSeconds = 600

// ParseOrigins reads a comma- or space-separated list of exact origins
// ("https://erp.example.com", "http://127.0.0.1:5173"). Wildcards, paths and other
// schemes are refused: an origin list is a security boundary, not a pattern.
func ParseOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Contains(o, "*") ||
			u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("origin %q: want an exact origin such as https://erp.example.com", o)
		}
		out = append(out, u.Scheme+"://"+strings.ToLower(u.Host))
	}
	return out, nil
}

// Methods reports the methods a request's path is served with (none: no route).
type Methods func(r *http.Request) []string

// MuxMethods are the methods mux serves r's path with, found by asking mux which pattern
// each method would reach: one other than the catch-alls (the pattern answering unknown
// routes, the console's greedy GET of every other path) is a route of the path.
func MuxMethods(mux *http.ServeMux, catchAll ...string) Methods {
	return func(r *http.Request) []string {
		var out []string
		for _, m := range CORSAllowMethods {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && !slices.Contains(catchAll, pattern) {
				out = append(out, m)
			}
		}
		return out
	}
}

// CORS lets the listed origins call next from a browser: it answers their preflights with
// the methods the path is served with (methods; nil: CORSAllowMethods) and marks their
// responses. Same-origin requests carry no Origin worth answering and pass untouched;
// other origins get no Access-Control-Allow-Origin, so their browsers refuse to read the
// answer. With no origins it returns next itself.
func CORS(origins []string, methods Methods, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	allowed := make(map[string]bool, len(origins))
	for _, o := range origins {
		allowed[o] = true
	}
	if methods == nil {
		methods = func(*http.Request) []string { return CORSAllowMethods }
	}
	headers := strings.Join(CORSAllowHeaders, ", ")
	expose := strings.Join(CORSExposeHeaders, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		h := w.Header()
		h.Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if !allowed[strings.ToLower(origin)] {
			if preflight {
				WriteProblem(w, r, NewProblem(http.StatusForbidden, "origin_not_allowed",
					"Origin "+origin+" may not call this API from a browser."))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		if preflight {
			served := methods(r)
			if len(served) == 0 {
				next.ServeHTTP(w, r) // no route: its 404
				return
			}
			h.Set("Access-Control-Allow-Methods", strings.Join(served, ", "))
			h.Set("Access-Control-Allow-Headers", headers)
			h.Set("Access-Control-Max-Age", fmt.Sprint(CORSMaxAgeSeconds))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", expose)
		next.ServeHTTP(w, r)
	})
}
