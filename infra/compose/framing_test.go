package compose_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/tenant"
)

// An admin saves the origins allowed to frame the console for the tenant; anything but
// exact https origins is refused with a field error and changes nothing (a deployed stage:
// no loopback http either). The console, reading the tenant's settings alone from the
// DynamoDB table, frames the tenant's page for those origins only.
func TestFrameOriginsAreValidatedAndFrameTheTenantsConsole(t *testing.T) {
	t.Setenv("TENANT_CACHE_TTL", "0") // the console sees the change at once
	e, call := settingsAPI(t)
	const admin = "admin@demo"
	for _, bad := range []string{"https://*.erp.example.com", "https://erp.example.com/app", "http://localhost:5173", "'self'"} {
		w := call(admin, "PATCH", "/api/settings", `{"settings": {"`+tenant.KeyEmbeddedAllowedOrigins+`": "`+bad+`"}}`)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "settings."+tenant.KeyEmbeddedAllowedOrigins) {
			t.Fatalf("%s: %d %s", bad, w.Code, w.Body)
		}
	}
	if w := call(admin, "PATCH", "/api/settings", `{"settings": {"`+tenant.KeyFinanceConfirmAbove+`": "1e6"}}`); w.Code != http.StatusBadRequest {
		t.Fatalf("confirm_above 1e6: %d %s", w.Code, w.Body)
	}
	csp := func(path string) string { return call("", "GET", path, "").Header().Get("Content-Security-Policy") }
	if got := csp("/queue?embed=demo"); !strings.Contains(got, "frame-ancestors 'none';") {
		t.Fatalf("before: %q", got)
	}
	if w := call(admin, "PATCH", "/api/settings", `{"settings": {"`+tenant.KeyEmbeddedAllowedOrigins+`": "https://1234567.app.erp.example.com"}}`); w.Code != http.StatusOK {
		t.Fatalf("good origins: %d %s", w.Code, w.Body)
	}
	if got := csp("/queue?embed=demo"); !strings.Contains(got, "frame-ancestors https://1234567.app.erp.example.com;") {
		t.Fatalf("the tenant's page: %q", got)
	}
	// The operator's tenantctl accepts loopback http (it sets up local stacks too); a
	// deployed stage's console ignores it and keeps the tenant's https origin.
	if err := (tenant.Admin{Store: e.deps.Tenants}).Set(t.Context(), "demo", tenant.KeyEmbeddedAllowedOrigins,
		"https://1234567.app.erp.example.com http://localhost:5173"); err != nil {
		t.Fatal(err)
	}
	if got := csp("/queue?embed=demo"); !strings.Contains(got, "frame-ancestors https://1234567.app.erp.example.com;") {
		t.Fatalf("a loopback origin stored by tenantctl: %q", got)
	}
	for _, other := range []string{"/queue", "/queue?embed=nobody"} {
		if got := csp(other); !strings.Contains(got, "frame-ancestors 'none';") {
			t.Fatalf("%s: %q", other, got)
		}
	}
}
