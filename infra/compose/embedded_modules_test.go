package compose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/webhook"
)

// embeddedAPI opens a host session with every role for the demo tenant and returns a
// caller that opens a context for a module and calls the API inside it.
func embeddedAPI(t *testing.T) (open func(module string) string, call func(ctxID, method, path, body string) *httptest.ResponseRecorder) {
	t.Helper()
	e := newEnv(t, sqsqueue.CreateOptions{})
	ctx := context.Background()
	cfg, _ := e.deps.Tenants.Get(ctx, "demo")
	cfg.Settings[session.SettingAllowedRoles] = "operator,approver,admin"
	if err := e.deps.Tenants.Update(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	api, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		return w
	}
	body := `{"userId":"u1","hostAccountId":"h1","roles":["operator","approver","admin"]}`
	key, _ := webhook.ParseSecret(fixtureSecret)
	sig := webhook.Sign(key, "msg_modules", fixtureTime, []byte(body))
	w := do("POST", "/api/embedded/host/bootstrap", body, map[string]string{"Content-Type": "application/json", "X-Tenant-Id": "demo",
		"webhook-id": sig.ID, "webhook-timestamp": sig.Timestamp, "webhook-signature": sig.Signature})
	if w.Code != http.StatusCreated {
		t.Fatalf("host bootstrap %d %s", w.Code, w.Body)
	}
	var issued session.Issued
	_ = json.Unmarshal(w.Body.Bytes(), &issued)
	open = func(module string) string {
		t.Helper()
		w := do("POST", "/api/embedded/context/bootstrap", `{"module":"`+module+`"}`,
			map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + issued.ServiceToken})
		if w.Code != http.StatusCreated {
			t.Fatalf("context %s: %d %s", module, w.Code, w.Body)
		}
		var opened session.OpenedContext
		_ = json.Unmarshal(w.Body.Bytes(), &opened)
		return opened.EmbeddedContextID
	}
	call = func(ctxID, method, path, body string) *httptest.ResponseRecorder {
		return do(method, path, body, map[string]string{"Content-Type": "application/json",
			"Authorization": "Bearer " + issued.ServiceToken, "X-Embedded-Context-Id": ctxID})
	}
	return open, call
}

// Every module of the embedded surface reaches a route of its own, and only its own.
func TestEveryEmbeddedModuleReachesItsRoutes(t *testing.T) {
	open, call := embeddedAPI(t)
	reads := map[string]string{} // module → a GET route of it without path parameters
	for _, f := range blueprint.HTTPFunctions() {
		r := f.Route
		if r.Module != "" && r.Method == "GET" && !strings.Contains(r.Path, "{") && reads[r.Module] == "" {
			reads[r.Module] = r.Path
		}
	}
	for _, m := range session.Modules {
		path, ok := reads[m]
		if !ok {
			t.Errorf("module %s has no route an embedded context can read", m)
			continue
		}
		id := open(m)
		if w := call(id, "GET", path, ""); w.Code != http.StatusOK {
			t.Errorf("module %s: GET %s = %d %s", m, path, w.Code, w.Body)
		}
		// A route of another module is refused inside this context.
		for other, p := range reads {
			if other != m && p != path {
				if w := call(id, "GET", p, ""); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), session.CodeWrongModule) {
					t.Errorf("module %s context: GET %s (module %s) = %d, want 403 %s", m, p, other, w.Code, session.CodeWrongModule)
				}
				break
			}
		}
	}
}

// The embedded settings module changes the feature switches and nothing else; overrides
// and rotation are for signed-in admins.
func TestEmbeddedSettingsChangeSwitchesOnly(t *testing.T) {
	open, call := embeddedAPI(t)
	id := open(session.ModuleSettings)
	if w := call(id, "PATCH", "/api/settings", `{"settings": {"finance_ops.enabled": "false"}}`); w.Code != http.StatusOK ||
		!strings.Contains(w.Body.String(), `"finance_ops.enabled":"false"`) {
		t.Fatalf("switch: %d %s", w.Code, w.Body)
	}
	w := call(id, "PATCH", "/api/settings", `{"settings": {"finance_ops.enabled": "true", "embedded.allowed_roles": "admin"},
	  "connectors": {"crm": {"baseUrl": "https://93.184.215.14/x", "token": "t"}}}`)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "outside_embedded_scope") ||
		!strings.Contains(w.Body.String(), "connectors.crm") || !strings.Contains(w.Body.String(), "settings.embedded.allowed_roles") {
		t.Fatalf("out of scope: %d %s", w.Code, w.Body)
	}
	if w := call(id, "GET", "/api/settings", ""); !strings.Contains(w.Body.String(), `"finance_ops.enabled":"false"`) ||
		strings.Contains(w.Body.String(), "93.184.215.14") {
		t.Fatalf("a refused change changed something: %s", w.Body)
	}
	for _, r := range [][2]string{{"POST", "/api/settings/webhook-secret/rotate"}, {"PUT", "/api/settings/manifest-overrides"}} {
		if w := call(id, r[0], r[1], `{}`); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), session.CodeWrongModule) {
			t.Errorf("%s %s from an embedded context = %d %s", r[0], r[1], w.Code, w.Body)
		}
	}
}
