package compose_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// settingsAPI is the whole service as a deployed stage builds it: local connector URLs
// are refused (the SSRF checks run).
func settingsAPI(t *testing.T) (*env, func(token, method, path, body string) *httptest.ResponseRecorder) {
	t.Helper()
	t.Setenv(platform.EnvConnectorsAllowLocal, "false")
	e := newEnv(t, sqsqueue.CreateOptions{})
	e.deps.Tokens = identitytest.RoleTokens{}
	api, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	return e, func(token, method, path, body string) *httptest.ResponseRecorder {
		return serve(api, token, method, path, body)
	}
}

func TestSettingsChangesAreValidatedAtomicAuditedAndNeverShowCredentials(t *testing.T) {
	e, call := settingsAPI(t)
	const admin = "admin@demo"
	if w := call("operator@demo", "GET", "/api/settings", ""); w.Code != http.StatusForbidden {
		t.Fatalf("operator: %d", w.Code)
	}
	patch := `{"settings": {"finance_ops.enabled": "false"},
	  "connectors": {"crm": {"baseUrl": "https://93.184.215.14/services/data", "token": "crm-token-do-not-show"}}}`
	w := call(admin, "PATCH", "/api/settings", patch)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "crm-token-do-not-show") ||
		!strings.Contains(w.Body.String(), `"hasToken":true`) || !strings.Contains(w.Body.String(), `"finance_ops.enabled":"false"`) {
		t.Fatalf("patch: %d %s", w.Code, w.Body)
	}
	if stored, _ := e.deps.Tenants.Get(context.Background(), "demo"); stored.Connectors["crm"].BaseURL != "https://93.184.215.14/services/data" {
		t.Fatalf("stored connector %+v", stored.Connectors["crm"])
	}

	// One bad part refuses the whole change: the flag stays as it was.
	bad := `{"settings": {"finance_ops.enabled": "true", "no.such.key": "x"},
	  "connectors": {"erp2": {"baseUrl": "https://169.254.169.254/latest"}, "marketing": {"baseUrl": "http://example.com"}, "nope": null}}`
	w = call(admin, "PATCH", "/api/settings", bad)
	for _, field := range []string{"settings.no.such.key", "connectors.erp2.baseUrl", "connectors.marketing.baseUrl", "connectors.nope"} {
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"`+field+`"`) {
			t.Fatalf("bad patch: %d %s, want an error on %s", w.Code, w.Body, field)
		}
	}
	if w := call(admin, "GET", "/api/settings", ""); !strings.Contains(w.Body.String(), `"finance_ops.enabled":"false"`) {
		t.Fatalf("a refused change changed something: %s", w.Body)
	}
	if w := call(admin, "PATCH", "/api/settings", `{"connectors": {"crm": null}}`); w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"crm"`) {
		t.Fatalf("remove connector: %d %s", w.Code, w.Body)
	}
	if w := call(admin, "PATCH", "/api/settings", `{"flags": {}}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown field: %d", w.Code)
	}

	page, err := e.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo", ActionType: audit.TypeSettings,
		From: time.Unix(0, 0), To: time.Now().Add(time.Hour), Limit: 10})
	if err != nil || len(page.Records) != 2 {
		t.Fatalf("settings audit records %d %v, want two changes", len(page.Records), err)
	}
	for _, r := range page.Records {
		if strings.Contains(string(r.Details), "crm-token-do-not-show") || !strings.Contains(string(r.Details), `"before"`) ||
			r.Actor.Actor != "user-admin" {
			t.Fatalf("audit %s: %s", r.ActionKey, r.Details)
		}
	}
}

func TestSettingsManifestOverridesGovernWrites(t *testing.T) {
	_, call := settingsAPI(t)
	w := call("admin@demo", "PUT", "/api/settings/manifest-overrides",
		`{"entries": [{"entity": "ticket", "owner": "crm", "policy": "reject_with_alert"}]}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"entity":"ticket"`) {
		t.Fatalf("put: %d %s", w.Code, w.Body)
	}
	w = call("admin@demo", "PUT", "/api/settings/manifest-overrides",
		`{"entries": [{"entity": "ticket", "owner": "nobody", "policy": "maybe"}]}`)
	if w.Code != http.StatusBadRequest {
		t.Fatalf("invalid override: %d %s", w.Code, w.Body)
	}
	if w := call("admin@demo", "GET", "/api/settings", ""); !strings.Contains(w.Body.String(), `"owner":"crm"`) {
		t.Fatalf("the valid overrides were replaced by an invalid change: %s", w.Body)
	}
}

// A rotated webhook secret is shown once; the old one keeps verifying (24 hours), so the
// host can switch without losing a delivery.
func TestSettingsSecretRotationKeepsTheOldSecretVerifying(t *testing.T) {
	e, call := settingsAPI(t)
	w := call("admin@demo", "POST", "/api/settings/webhook-secret/rotate", `{"purpose": "ingest"}`)
	var rot settings.Rotation
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &rot) != nil || !strings.HasPrefix(rot.Secret, "whsec_") ||
		w.Header().Get("Cache-Control") != "no-store" || !rot.PreviousRetiresAt.Equal(fixtureTime.Add(24*time.Hour)) {
		t.Fatalf("rotate: %d %s", w.Code, w.Body)
	}
	if strings.Contains(call("admin@demo", "GET", "/api/settings", "").Body.String(), rot.Secret) {
		t.Fatal("the settings show a secret")
	}
	api, _ := e.deps.Mux(blueprint.HTTPFunctions())
	for i, secret := range []string{fixtureSecret, rot.Secret} {
		body, _ := json.Marshal(map[string]any{"tenantId": "demo", "errorId": "ERR-ROT-" + string(rune('A'+i)), "recordType": "salesOrder",
			"recordId": "SO-1", "errorCode": "X", "message": "m", "occurredAt": fixtureTime.Format(time.RFC3339)})
		key, _ := webhook.ParseSecret(secret)
		r := httptest.NewRequest("POST", blueprint.IngestRoute.Path, strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(intake.HeaderTenantID, "demo")
		webhook.Sign(key, webhook.NewMessageID(), fixtureTime, body).Set(r.Header)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, r)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("ingest signed with secret %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if w := call("admin@demo", "POST", "/api/settings/webhook-secret/rotate", `{"purpose": "nope"}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown purpose: %d", w.Code)
	}
}

// A base URL checked when it was saved can lead elsewhere later (DNS rebinding): every
// connection is checked again after resolution, so a connector that now resolves to
// loopback reaches nothing, and says it is a configuration to fix rather than an outage.
func TestConnectorsRefuseAPrivateAddressAtDialTime(t *testing.T) {
	e, _ := settingsAPI(t)
	erp := fakesystem.New(connector.SystemHostERP)
	erp.Seed("customer", "C-1", map[string]any{"email": "a@example.com"})
	srv := httptest.NewServer(erp.Handler())
	t.Cleanup(srv.Close)
	// As if the name had resolved to a public address when it was saved.
	if err := (tenant.Admin{Store: e.deps.Tenants}).SetConnector(context.Background(), "demo", "hosterp", srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	c, err := guarded.Connectors(e.deps.Base).Client(context.Background(), "demo", connector.SystemHostERP)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "customer", "C-1")
	if !errors.Is(err, connector.ErrInvalidConfig) || connector.ErrorKind(err) != "invalid_config" {
		t.Fatalf("get through a connector that resolves to loopback: %v, want invalid_config", err)
	}
	if n := erp.Requests(); n != 0 {
		t.Fatalf("the loopback system received %d requests", n)
	}
}
