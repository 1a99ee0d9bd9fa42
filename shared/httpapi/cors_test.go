package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/syncassist/syncassist/shared/httpapi"
)

func TestParseOrigins(t *testing.T) {
	got, err := httpapi.ParseOrigins("https://ERP.example.com, http://127.0.0.1:5173 https://x.example.com/")
	if err != nil || len(got) != 3 || got[0] != "https://erp.example.com" || got[2] != "https://x.example.com" {
		t.Fatalf("ParseOrigins = %v, %v", got, err)
	}
	for _, bad := range []string{"*", "https://*.example.com", "ftp://x.example.com", "https://x.example.com/app",
		"example.com", "https://u:p@x.example.com", "https://x.example.com?q=1"} {
		if _, err := httpapi.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}

func TestCORS(t *testing.T) {
	reached := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusOK)
	})
	h := httpapi.CORS([]string{"https://erp.example.com"}, nil, next)
	do := func(method, origin string, preflight bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/api/audit", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if preflight {
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "authorization, x-embedded-context-id")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	w := do(http.MethodOptions, "https://erp.example.com", true)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "https://erp.example.com" ||
		w.Header().Get("Access-Control-Allow-Headers") != "authorization, content-type, x-embedded-context-id, x-correlation-id" ||
		w.Header().Get("Access-Control-Allow-Methods") != "GET, POST, PUT, PATCH, DELETE" || reached != 0 {
		t.Fatalf("allowed preflight: %d %v (handler reached %d times)", w.Code, w.Header(), reached)
	}
	if w.Header().Get("Access-Control-Allow-Credentials") != "" {
		t.Fatal("credentials must not be allowed: bearer tokens only")
	}

	w = do(http.MethodGet, "https://erp.example.com", false)
	if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "https://erp.example.com" ||
		w.Header().Get("Access-Control-Expose-Headers") == "" || w.Header().Get("Vary") != "Origin" {
		t.Fatalf("allowed GET: %d %v", w.Code, w.Header())
	}

	for _, origin := range []string{"https://evil.example.com", "https://erp.example.com.evil.example"} {
		if w := do(http.MethodOptions, origin, true); w.Code != http.StatusForbidden || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("%s preflight: %d %v", origin, w.Code, w.Header())
		}
		if w := do(http.MethodGet, origin, false); w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("%s GET got Access-Control-Allow-Origin", origin)
		}
	}
	if w := do(http.MethodGet, "", false); w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("same-origin GET: %d %v", w.Code, w.Header())
	}

	// No list: same-origin only, and nothing is added to any answer.
	r := httptest.NewRequest(http.MethodOptions, "/api/audit", nil)
	r.Header.Set("Origin", "https://erp.example.com")
	r.Header.Set("Access-Control-Request-Method", "GET")
	w = httptest.NewRecorder()
	httpapi.CORS(nil, nil, next).ServeHTTP(w, r)
	if w.Header().Get("Access-Control-Allow-Origin") != "" || w.Header().Get("Vary") != "" {
		t.Fatalf("CORS(nil) answered %v", w.Header())
	}
}

// A preflight is answered with the methods its path is served with, PUT and PATCH among
// them, found on the mux itself; a path without routes gets the mux's 404.
func TestCORSAnswersEachPathsMethods(t *testing.T) {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, r *http.Request) {}
	mux.HandleFunc("GET /api/settings", ok)
	mux.HandleFunc("PATCH /api/settings", ok)
	mux.HandleFunc("PUT /api/settings/manifest-overrides", ok)
	mux.HandleFunc("POST /api/items/{id}/approve", ok)
	mux.HandleFunc("DELETE /api/items/{id}", ok)
	mux.HandleFunc("GET /api/items/{id}", ok)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	h := httpapi.CORS([]string{"https://erp.example.com"}, httpapi.MuxMethods(mux, "/"), mux)
	for path, want := range map[string]string{
		"/api/settings":                    "GET, PATCH",
		"/api/settings/manifest-overrides": "PUT",
		"/api/items/se_1/approve":          "POST",
		"/api/items/se_1":                  "GET, DELETE",
	} {
		r := httptest.NewRequest(http.MethodOptions, path, nil)
		r.Header.Set("Origin", "https://erp.example.com")
		r.Header.Set("Access-Control-Request-Method", "PATCH")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Methods") != want {
			t.Errorf("preflight %s = %d, methods %q, want %q", path, w.Code, w.Header().Get("Access-Control-Allow-Methods"), want)
		}
	}
	r := httptest.NewRequest(http.MethodOptions, "/api/nowhere", nil)
	r.Header.Set("Origin", "https://erp.example.com")
	r.Header.Set("Access-Control-Request-Method", "GET")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNotFound || w.Header().Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("preflight of no route = %d %v", w.Code, w.Header())
	}
}
