package settings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// tenantConfigs reads connectors from the tenant store as the wiring does (tokens are
// plain here: the test store seals nothing).
type tenantConfigs struct{ store *tenanttest.Store }

func (c tenantConfigs) ConnectorConfig(ctx context.Context, tenantID string, sys connector.System) (connector.Config, error) {
	cfg, err := c.store.Get(ctx, tenantID)
	if err != nil {
		return connector.Config{}, err
	}
	cc, ok := cfg.Connectors[string(sys)]
	if !ok {
		return connector.Config{}, fmt.Errorf("%s: %w", sys, connector.ErrNotConfigured)
	}
	return connector.Config{System: sys, BaseURL: cc.BaseURL, Token: cc.Token, AllowLoopback: true, MaxAttempts: 1}, nil
}

// TestConnectorCheck: the check makes one authenticated read through the connector (and
// its SSRF guard) with the connector as configured now, answers what failed in the
// vendor's words (status and code) without the credential or the answer's text, and is
// audited either way.
func TestConnectorCheck(t *testing.T) {
	crm := fakesystem.New(connector.SystemCRM)
	crm.RequireToken("good-token")
	srv := httptest.NewServer(crm.Handler())
	t.Cleanup(srv.Close)
	store := tenanttest.NewStore()
	ctx := context.Background()
	if err := store.Create(ctx, tenant.Config{ID: "t1", Connectors: map[string]tenant.Connector{
		"crm":       {BaseURL: srv.URL, Token: "good-token"},
		"marketing": {BaseURL: "http://169.254.169.254", Token: "anystring:key"},
	}}); err != nil {
		t.Fatal(err)
	}
	audits := &audittest.Store{}
	s := &settings.Service{Admin: tenant.Admin{Store: store}, Audit: &audit.Log{Store: audits, Redactor: passRedactor{}},
		Checker: settings.RegistryChecker{Connectors: connector.NewRegistry(tenantConfigs{store}, 0)}}
	check := func(system string) (int, settings.ConnectorCheck, string) {
		r := httptest.NewRequest(http.MethodPost, "/api/settings/connectors/"+system+"/test", nil)
		r.SetPathValue("system", system)
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
		w := httptest.NewRecorder()
		s.ConnectorCheckHandler().ServeHTTP(w, r)
		var out settings.ConnectorCheck
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return w.Code, out, w.Body.String()
	}

	code, out, body := check("crm")
	if code != http.StatusOK || !out.OK || out.Vendor != "Salesforce" || !strings.HasPrefix(out.Read, "GET") || crm.Requests() != 1 {
		t.Fatalf("good check = %d %s (%d requests)", code, body, crm.Requests())
	}
	if got := crm.RequestsByMethod(); got[http.MethodGet] != 1 {
		t.Fatalf("the check sent %v", got)
	}

	// The credential is rotated at the vendor: the very next check sees it, without
	// waiting for the cached client to expire.
	crm.RequireToken("rotated")
	code, out, body = check("crm")
	if code != http.StatusOK || out.OK || out.Stage != "read" || out.Failure == nil || out.Failure.Kind != "unauthorized" ||
		out.Failure.Status != http.StatusUnauthorized || out.Failure.Code == "" {
		t.Fatalf("refused check = %d %s", code, body)
	}
	if strings.Contains(body, "good-token") || strings.Contains(body, "missing or invalid credentials") {
		t.Fatalf("the answer carries the credential or the vendor's text: %s", body)
	}

	// The SSRF guard refuses the metadata address before anything is sent.
	code, out, body = check("marketing")
	if code != http.StatusOK || out.OK || out.Failure == nil || out.Failure.Kind != "invalid_config" || !strings.Contains(out.Failure.Message, "resolves to") {
		t.Fatalf("check of a link-local address = %d %s", code, body)
	}
	code, out, body = check("shipping")
	if code != http.StatusOK || out.OK || out.Stage != "configuration" || out.Failure.Kind != "not_configured" {
		t.Fatalf("check of a system without a connector = %d %s", code, body)
	}
	if code, _, body := check("sap"); code != http.StatusNotFound {
		t.Fatalf("unknown system = %d %s", code, body)
	}

	var results []string
	for _, rec := range audits.All() {
		if rec.ActionKey == "settings.connector.test" {
			results = append(results, rec.Resource+"="+string(rec.Result))
		}
		if b, _ := json.Marshal(rec); strings.Contains(string(b), "good-token") {
			t.Fatalf("an audit record carries the credential: %s", b)
		}
	}
	want := "connector/crm=success,connector/crm=failure,connector/marketing=failure,connector/shipping=failure"
	if strings.Join(results, ",") != want {
		t.Fatalf("audited %v, want %s", results, want)
	}
}

type passRedactor struct{}

func (passRedactor) RedactText(_ context.Context, s string) (string, error) { return s, nil }
func (passRedactor) RedactJSON(_ context.Context, b []byte) ([]byte, error) { return b, nil }
