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
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func aliasService(t *testing.T) (settings.Aliases, *tenanttest.Store, *audittest.Store) {
	t.Helper()
	store := tenanttest.NewStore()
	if err := store.Create(context.Background(), tenant.Config{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	audits := &audittest.Store{}
	s := &settings.Service{Admin: tenant.Admin{Store: store}, Audit: &audit.Log{Store: audits, Redactor: passRedactor{}}}
	return settings.Aliases{Service: s}, store, audits
}

func callAliases(h http.Handler, method, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/api/settings/system-aliases", strings.NewReader(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// An admin's names replace the tenant's own, are audited, and resolve; the defaults show
// as such beside them.
func TestPutSystemAliases(t *testing.T) {
	s, store, audits := aliasService(t)
	w := callAliases(s.PutHandler(), http.MethodPut, `{"aliases": {"BC Europe": "erp2", "Salesforce": "marketing"}}`)
	var v settings.AliasesView
	if err := json.Unmarshal(w.Body.Bytes(), &v); w.Code != http.StatusOK || err != nil {
		t.Fatalf("put = %d %s", w.Code, w.Body)
	}
	byName := map[string]settings.AliasEntry{}
	for _, e := range v.Entries {
		byName[e.Name] = e
	}
	if v.Aliases["BC Europe"] != "erp2" || byName["BC Europe"].Default || !byName["Business Central"].Default ||
		byName["Salesforce"].System != connector.SystemMarketing || byName["Salesforce"].Default || len(v.Systems) != len(connector.Systems) {
		t.Fatalf("view = %+v", v)
	}
	c, _ := store.Get(context.Background(), "t1")
	if sys, ok := c.ResolveSystem("bc europe"); !ok || sys != connector.SystemERP2 {
		t.Fatalf("stored %v", c.SystemAliases)
	}
	recs := audits.All()
	if len(recs) != 1 || recs[0].ActionKey != "settings.system_aliases" || recs[0].Actor.Actor != "ann" {
		t.Fatalf("audited %+v", recs)
	}
	// An explicit empty set removes the tenant's own; the defaults stay.
	w = callAliases(s.PutHandler(), http.MethodPut, `{"aliases": {}}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"aliases":{}`) || !strings.Contains(w.Body.String(), "ShipStation") {
		t.Fatalf("clear = %d %s", w.Code, w.Body)
	}
	w = callAliases(s.GetHandler(), http.MethodGet, "")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"name":"Business Central","system":"erp2","default":true`) {
		t.Fatalf("get = %d %s", w.Code, w.Body)
	}
}

// Bad input is refused with the field named, and nothing changes.
func TestPutSystemAliasesRefused(t *testing.T) {
	for _, tc := range []struct{ name, body, code, field string }{
		{"null body", `null`, "validation_failed", "aliases"},
		{"no aliases", `{}`, "validation_failed", "aliases"},
		{"null aliases", `{"aliases": null}`, "validation_failed", "aliases"},
		{"unknown system", `{"aliases": {"Webshop": "sap"}}`, "validation_failed", "aliases.Webshop"},
		{"empty name", `{"aliases": {"": "erp2"}}`, "validation_failed", "aliases"},
		{"blank name", `{"aliases": {"  ": "erp2"}}`, "validation_failed", "aliases.  "},
		{"a system key", `{"aliases": {"CRM": "erp2"}}`, "validation_failed", "aliases.CRM"},
		{"same name twice", `{"aliases": {"Shop": "crm", "shop": "crm"}}`, "validation_failed", "aliases.shop"},
		{"not a string", `{"aliases": {"Shop": 5}}`, "malformed_json", ""},
		{"unknown field", `{"aliases": {}, "defaults": {}}`, "malformed_json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, store, audits := aliasService(t)
			w := callAliases(s.PutHandler(), http.MethodPut, tc.body)
			var p httpapi.Problem
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if w.Code != http.StatusBadRequest || p.Code != tc.code {
				t.Fatalf("= %d %s", w.Code, w.Body)
			}
			if tc.field != "" && (len(p.Errors) != 1 || p.Errors[0].Field != tc.field) {
				t.Fatalf("errors %+v, want field %q", p.Errors, tc.field)
			}
			if c, _ := store.Get(context.Background(), "t1"); c.SystemAliases != nil || c.Version != 1 || len(audits.All()) != 0 {
				t.Fatalf("changed: %+v, audits %d", c, len(audits.All()))
			}
		})
	}
}
