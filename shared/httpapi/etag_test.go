package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/syncassist/syncassist/shared/httpapi"
)

func TestRevalidate(t *testing.T) {
	body := `{"items":[1]}`
	h := httpapi.Revalidate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/secret":
			w.Header().Set("Cache-Control", "no-store")
		case "/api/missing":
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "not_found", "none"))
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"items": []int{1}})
	}))
	get := func(path, inm string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	first := get("/api/list", "")
	etag := first.Header().Get("ETag")
	if first.Code != 200 || etag == "" || first.Body.String() != body+"\n" || first.Header().Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("first read: %d etag %q cache %q body %q", first.Code, etag, first.Header().Get("Cache-Control"), first.Body)
	}
	if again := get("/api/list", `"other", W/`+etag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Fatalf("unchanged read: %d %q", again.Code, again.Body)
	}
	if stale := get("/api/list", `"other"`); stale.Code != 200 || stale.Body.Len() == 0 {
		t.Fatalf("changed read: %d", stale.Code)
	}
	if s := get("/api/secret", etag); s.Code != 200 || s.Header().Get("ETag") != "" || s.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("a no-store answer got %d etag %q cache %q", s.Code, s.Header().Get("ETag"), s.Header().Get("Cache-Control"))
	}
	if m := get("/api/missing", "*"); m.Code != 404 || m.Header().Get("ETag") != "" {
		t.Fatalf("a problem got %d etag %q", m.Code, m.Header().Get("ETag"))
	}
	if o := get("/assets/app.js", "*"); o.Code != 200 || o.Header().Get("ETag") != "" {
		t.Fatalf("outside /api/: %d etag %q", o.Code, o.Header().Get("ETag"))
	}
}
