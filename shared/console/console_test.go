package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/console"
	"github.com/syncassist/syncassist/shared/version"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

var assetRef = regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`)

func TestServesTheAppWithStrictHeaders(t *testing.T) {
	h := console.Handler(console.ConfigFromEnv(func(string) string { return "" }), nil)
	for _, path := range []string{"/", "/queue", "/queue/se_0123", "/finance/fa_1"} {
		w := get(t, h, path)
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", path, w.Code, w.Header().Get("Content-Type"))
		}
		if w.Header().Get("Cache-Control") != "no-cache" {
			t.Fatalf("%s: Cache-Control %q, want no-cache on the HTML", path, w.Header().Get("Cache-Control"))
		}
		csp := w.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self';", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Fatalf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") {
			t.Fatalf("%s: CSP %q allows inline code or another origin", path, csp)
		}
	}

	// Every asset the page references is served, immutable for a year.
	index := get(t, h, "/").Body.String()
	if strings.Contains(index, "<script>") || strings.Contains(index, "<style") {
		t.Fatal("index.html carries inline script or style, which the CSP forbids")
	}
	for _, m := range assetRef.FindAllStringSubmatch(index, -1) {
		w := get(t, h, m[1])
		if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("%s: %d %q", m[1], w.Code, w.Header().Get("Cache-Control"))
		}
	}
	if w := get(t, h, "/assets/app-nope.js"); w.Code != http.StatusNotFound {
		t.Fatalf("unknown asset: %d, want 404", w.Code)
	}
}

// Unknown API paths are the API's 404, never the app's HTML (a client must not parse
// HTML as JSON).
func TestAPIPathsAreNotTheApp(t *testing.T) {
	h := console.Handler(console.Config{}, nil)
	for _, path := range []string{"/api", "/api/nope", "/api/../api/x"} {
		w := get(t, h, path)
		if w.Code != http.StatusNotFound || w.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s: %d %s", path, w.Code, w.Header().Get("Content-Type"))
		}
	}
}

func TestConfigJSON(t *testing.T) {
	env := map[string]string{
		"STAGE": "prod", console.EnvIssuer: "https://login.example.com/", console.EnvClientID: "client-1",
		console.EnvToken: "https://auth.example.com/oauth2/token", console.EnvFrameAncestors: "https://a.example.com https://b.example.com",
	}
	cfg := console.ConfigFromEnv(func(k string) string { return env[k] })
	h := console.Handler(cfg, nil)
	w := get(t, h, "/config.json")
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("config.json: %d %q", w.Code, w.Header().Get("Cache-Control"))
	}
	var got console.Config
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := console.OIDC{Issuer: "https://login.example.com/", ClientID: "client-1",
		AuthorizationEndpoint: "https://login.example.com/authorize", TokenEndpoint: "https://auth.example.com/oauth2/token",
		RedirectPath: "/auth/callback", Scope: "openid", TokenType: "access_token"}
	if got.OIDC != want || got.Stage != "prod" || got.DevSignIn {
		t.Fatalf("config %+v, want oidc %+v", got, want)
	}
	// The token endpoint is fetched by the code exchange, so the CSP must allow it; the
	// framing host ERP is allowed to embed the console.
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "connect-src 'self' https://auth.example.com;") ||
		!strings.Contains(csp, "frame-ancestors https://a.example.com https://b.example.com;") {
		t.Fatalf("CSP %q", csp)
	}
}

// Chunk references in the minified ES modules: `from"./chunk-X.js"` and `import"./x.js"`
// are static (loaded with the page), `import("./x.js")` is a panel loaded when opened.
var (
	staticImport  = regexp.MustCompile(`(?:from|import)\s*"\./([\w.-]+\.js)"`)
	dynamicImport = regexp.MustCompile(`import\(\s*"\./([\w.-]+\.js)"\s*\)`)
)

// The first load stays within the budget: 100 KiB of minified JavaScript, counted
// as the entry index.html names and every chunk it imports statically. Every chunk,
// static or loaded on demand, is served as JavaScript from this origin, immutable (its
// name carries its hash), and every JS file built is reachable from the entry.
func TestBundleBudget(t *testing.T) {
	h := console.Handler(console.Config{}, nil)
	var entry string
	for _, m := range assetRef.FindAllStringSubmatch(get(t, h, "/").Body.String(), -1) {
		if strings.HasSuffix(m[1], ".js") {
			entry = strings.TrimPrefix(m[1], "/assets/")
		}
	}
	firstLoad, seen, inFirst := 0, map[string]bool{}, map[string]bool{}
	var visit func(name string, first bool)
	visit = func(name string, first bool) {
		if seen[name] && (!first || inFirst[name]) {
			return
		}
		w := get(t, h, "/assets/"+name)
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") ||
			w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("%s: %d %q %q", name, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"))
		}
		seen[name] = true
		if first {
			inFirst[name] = true
			firstLoad += w.Body.Len()
		}
		for _, m := range staticImport.FindAllStringSubmatch(w.Body.String(), -1) {
			visit(m[1], first)
		}
		for _, m := range dynamicImport.FindAllStringSubmatch(w.Body.String(), -1) {
			visit(m[1], false)
		}
	}
	if entry == "" {
		t.Fatal("index.html names no script")
	}
	visit(entry, true)
	if firstLoad > 100*1024 {
		t.Fatalf("first-load JavaScript is %d bytes, over the 100 KiB budget", firstLoad)
	}
	t.Logf("first-load JavaScript: %.1f KiB in %d files of %d", float64(firstLoad)/1024, len(inFirst), len(seen))
	err := fs.WalkDir(console.Assets(), "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".js") && !seen[path.Base(p)] {
			t.Errorf("%s is built but nothing imports it", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// GET /api/version answers the build's stamp as JSON: the catch-all route brings it here.
func TestVersion(t *testing.T) {
	version.Version, version.BuildTime = "v1.2.3-4-gabc", "2026-11-25T04:00:00Z"
	t.Cleanup(func() { version.Version, version.BuildTime = "dev", "" })
	w := get(t, console.Handler(console.Config{}, nil), "/api/version")
	var got version.Info
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK ||
		got.Version != "v1.2.3-4-gabc" || got.BuildTime != "2026-11-25T04:00:00Z" || got.Go == "" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// origins is a tenant directory for framing: tenant → its allowed origins; "down" fails.
type origins map[string][]string

func (o origins) FrameOrigins(_ context.Context, id string) ([]string, error) {
	if id == "down" {
		return nil, errors.New("tenant table unavailable")
	}
	return o[id], nil
}

// Each tenant's page may be framed by that tenant's origins alone (and the stage's); the
// page without ?embed=, an unknown tenant, a tenant that allows none, a malformed id and a
// failed lookup may be framed by nobody beyond the stage's list. /config.json publishes the
// same list.
func TestFrameAncestorsPerTenant(t *testing.T) {
	h := console.Handler(console.Config{FrameAncestors: []string{"https://all.example.com"}}, origins{
		"acme":   {"https://1234567.app.erp.example.com"},
		"globex": {"https://globex.erp.example.net", "http://localhost:5173"},
	})
	for _, c := range []struct{ path, want string }{
		{"/queue?embed=acme", "https://all.example.com https://1234567.app.erp.example.com"},
		{"/?embed=globex", "https://all.example.com https://globex.erp.example.net http://localhost:5173"},
		{"/queue", "https://all.example.com"},
		{"/queue?embed=initech", "https://all.example.com"},
		{"/queue?embed=ACME%20x", "https://all.example.com"},
		{"/queue?embed=down", "https://all.example.com"},
	} {
		csp := get(t, h, c.path).Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors "+c.want+";") {
			t.Errorf("%s: CSP %q, want frame-ancestors %s", c.path, csp, c.want)
		}
		query := ""
		if i := strings.Index(c.path, "?"); i >= 0 {
			query = c.path[i:]
		}
		var cfg console.Config
		if err := json.Unmarshal(get(t, h, "/config.json"+query).Body.Bytes(), &cfg); err != nil {
			t.Fatal(err)
		}
		if strings.Join(cfg.EmbedOrigins, " ") != c.want {
			t.Errorf("%s: config.json embedOrigins %v, want %s", c.path, cfg.EmbedOrigins, c.want)
		}
	}
	if csp := get(t, console.Handler(console.Config{}, origins{}), "/?embed=acme").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none';") {
		t.Errorf("a tenant that allows none: CSP %q", csp)
	}
}
