package settings_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// overrides keeps a tenant's manifest overrides in memory.
type overrides struct{ entries []governance.Entry }

func (o *overrides) Manifest(context.Context, string) (governance.Manifest, error) {
	return governance.Manifest{}, nil
}

func (o *overrides) SetOverrides(_ context.Context, _ string, e []governance.Entry) error {
	o.entries = e
	return nil
}

func (o *overrides) Overrides(context.Context, string) ([]governance.Entry, error) {
	return o.entries, nil
}

// No default acts on bad input: a body that is null, empty or missing what the change
// needs is 400 validation_failed naming the field, and nothing changed (the overrides,
// the secrets and the settings read back the same; no audit entry).
func TestMutationsRequireTheirFields(t *testing.T) {
	store := tenanttest.NewStore()
	ctx := context.Background()
	if err := store.Create(ctx, tenant.Config{ID: "t1", Settings: map[string]string{tenant.KeyEnabled: "true"},
		WebhookSecrets: []tenant.Secret{{Value: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}}}); err != nil {
		t.Fatal(err)
	}
	kept := []governance.Entry{{Entity: "customer", Field: "email", Owner: "crm", Policy: "owner_wins"}}
	ov := &overrides{entries: kept}
	audits := &audittest.Store{}
	s := &settings.Service{Admin: tenant.Admin{Store: store}, Manifests: ov, Overrides: ov,
		Audit: &audit.Log{Store: audits, Redactor: passRedactor{}}}
	routes := []struct {
		method, path string
		h            http.Handler
		field        string
		bodies       []string
	}{
		{"PUT", "/api/settings/manifest-overrides", s.OverridesHandler(), "entries",
			[]string{"", "null", "{}", `{"entries": null}`}},
		{"POST", "/api/settings/webhook-secret/rotate", s.RotateHandler(), "purpose",
			[]string{"", "null", "{}", `{"purpose": null}`}},
		{"PATCH", "/api/settings", s.PatchHandler(), "settings",
			[]string{"null", "{}", `{"settings": null}`, `{"settings": {}, "connectors": {}}`}},
		{"PATCH", "/api/settings", s.PatchHandler(), "settings." + tenant.KeyEnabled,
			[]string{`{"settings": {"` + tenant.KeyEnabled + `": null}}`}},
	}
	before, _ := store.Get(ctx, "t1")
	for _, rt := range routes {
		for _, body := range append(rt.bodies, "[]") {
			r := httptest.NewRequest(rt.method, rt.path, strings.NewReader(body))
			r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
			w := httptest.NewRecorder()
			rt.h.ServeHTTP(w, r)
			if w.Code != http.StatusBadRequest {
				t.Errorf("%s %s %q = %d %s, want 400", rt.method, rt.path, body, w.Code, w.Body)
				continue
			}
			if body == "[]" {
				if !strings.Contains(w.Body.String(), `"malformed_json"`) {
					t.Errorf("%s %s []: %s, want malformed_json (not an object)", rt.method, rt.path, w.Body)
				}
				continue
			}
			p := httpapi.Problem{}
			if err := decodeJSON(w.Body.Bytes(), &p); err != nil || p.Code != "validation_failed" || len(p.Errors) == 0 || p.Errors[0].Field != rt.field {
				t.Errorf("%s %s %q: %s, want validation_failed naming %s", rt.method, rt.path, body, w.Body, rt.field)
			}
		}
	}
	after, _ := store.Get(ctx, "t1")
	if len(ov.entries) != 1 || ov.entries[0] != kept[0] {
		t.Errorf("overrides now %+v: a refused body deleted them", ov.entries)
	}
	if len(after.WebhookSecrets) != 1 || after.WebhookSecrets[0].Value != before.WebhookSecrets[0].Value ||
		after.Settings[tenant.KeyEnabled] != "true" {
		t.Errorf("tenant changed: secrets %d, settings %v", len(after.WebhookSecrets), after.Settings)
	}
	if recs := audits.All(); len(recs) != 0 {
		t.Errorf("%d audit entries for refused changes: %+v", len(recs), recs)
	}

	// Stated, they act: an empty list clears the overrides, a named purpose rotates.
	call := func(method, path string, h http.Handler, body string) int {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if c := call("PUT", "/api/settings/manifest-overrides", s.OverridesHandler(), `{"entries": []}`); c != http.StatusOK || len(ov.entries) != 0 {
		t.Errorf("entries [] = %d, overrides %+v: want them cleared", c, ov.entries)
	}
	if c := call("POST", "/api/settings/webhook-secret/rotate", s.RotateHandler(), `{"purpose": "ingest"}`); c != http.StatusOK {
		t.Errorf("rotate ingest = %d", c)
	}
	if recs := audits.All(); len(recs) != 2 || recs[0].Result != audit.ResultSuccess {
		t.Errorf("stated changes audited %d times", len(recs))
	}
}

func decodeJSON(b []byte, v any) error { return json.Unmarshal(b, v) }
