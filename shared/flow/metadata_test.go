package flow_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/identity"
)

func getMetadata(t *testing.T, s *flow.Service, system, query string) (int, flow.Metadata, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/api/settings/connectors/"+system+"/metadata?"+query, nil)
	r.SetPathValue("system", system)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "admin", Roles: []string{identity.RoleAdmin}}))
	w := httptest.NewRecorder()
	s.MetadataHandler().ServeHTTP(w, r)
	var m flow.Metadata
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m, w.Body.String()
}

// TestMetadataIsCachedPerTenant: the CRM's describe answers the editor's entities and
// fields under the vendor's name; a second read within the TTL is the cached one (no
// request to the vendor), refresh=true and the TTL's end read the vendor again.
func TestMetadataIsCachedPerTenant(t *testing.T) {
	e := newMatchEnv(t, matches["lookup"])
	e.crm.Seed("Account", "001000000000001AAA", map[string]any{"Name": "Acme", "ERP_Customer_Id__c": "C-1"})
	s := e.service()

	code, m, body := getMetadata(t, s, "crm", "")
	if code != http.StatusOK || m.Vendor != "Salesforce" || m.Cached ||
		!slices.ContainsFunc(m.Entities, func(x connector.Entity) bool { return x.Name == "Account" }) {
		t.Fatalf("entities = %d %s", code, body)
	}
	code, m, body = getMetadata(t, s, "crm", "entity=Account")
	if code != http.StatusOK || !slices.ContainsFunc(m.Fields, func(f connector.Field) bool { return f.Name == "ERP_Customer_Id__c" }) {
		t.Fatalf("fields = %d %s", code, body)
	}
	requests := e.crm.Requests()
	if _, m, _ = getMetadata(t, s, "crm", "entity=Account"); !m.Cached || e.crm.Requests() != requests {
		t.Fatalf("second read: cached %v, %d requests to the vendor", m.Cached, e.crm.Requests()-requests)
	}
	if _, m, _ = getMetadata(t, s, "crm", "entity=Account&refresh=true"); m.Cached || e.crm.Requests() != requests+1 {
		t.Fatalf("refresh: cached %v, %d requests to the vendor", m.Cached, e.crm.Requests()-requests)
	}
	e.mu.Lock()
	e.now = e.now.Add(flow.MetadataTTL + time.Second)
	e.mu.Unlock()
	if _, m, _ = getMetadata(t, s, "crm", "entity=Account"); m.Cached || e.crm.Requests() != requests+2 {
		t.Fatalf("after the TTL: cached %v, %d requests to the vendor", m.Cached, e.crm.Requests()-requests)
	}
	if code, _, body := getMetadata(t, s, "sap", ""); code != http.StatusNotFound {
		t.Fatalf("unknown system = %d %s", code, body)
	}
	if code, _, body := getMetadata(t, s, "crm", "entity=NoSuch"); code != http.StatusNotFound {
		t.Fatalf("unknown entity = %d %s", code, body)
	}
}
