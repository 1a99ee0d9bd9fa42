package tenant_test

import (
	"context"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// Frame origins are exact https origins; http only on loopback and only where the stage
// allows it (local); anything else is refused when saved, naming the bad entry.
func TestCheckSettingOrigins(t *testing.T) {
	for _, c := range []struct {
		value    string
		loopback bool
		ok       bool
	}{
		{"https://1234567.app.erp.example.com", false, true},
		{"https://a.example.com, https://b.example.com:8443 ", false, true},
		{"", false, true},
		{"http://localhost:5173", true, true},
		{"http://127.0.0.1:8080", true, true},
		{"http://localhost:5173", false, false},
		{"http://erp.example.com", true, false},
		{"https://*.example.com", false, false},
		{"https://a.example.com/path", false, false},
		{"https://a.example.com?x=1", false, false},
		{"https://user@a.example.com", false, false},
		{"'self'", false, false},
		{"https://a.example.com;script-src", false, false},
		{"a.example.com", false, false},
		{"javascript:alert(1)", false, false},
	} {
		err := tenant.CheckSetting(tenant.KeyEmbeddedAllowedOrigins, c.value, c.loopback)
		if (err == nil) != c.ok {
			t.Errorf("%q (loopback %v): %v, want ok=%v", c.value, c.loopback, err, c.ok)
		}
	}
	got, _ := tenant.ParseFrameOrigins("HTTPS://A.Example.com/", false)
	if strings.Join(got, " ") != "https://a.example.com" {
		t.Fatalf("normalised %v", got)
	}
}

// The finance confirmation threshold is an amount of 0 or more; unset means the default.
func TestCheckSettingConfirmAbove(t *testing.T) {
	for v, ok := range map[string]bool{"": true, "0": true, "25000": true, "9999.99": true, "-1": false, "1e6": false,
		"0x10": false, "10,000": false, "1/2": false, "abc": false} {
		if err := tenant.CheckSetting(tenant.KeyFinanceConfirmAbove, v, false); (err == nil) != ok {
			t.Errorf("%q: %v, want ok=%v", v, err, ok)
		}
	}
	cfg := tenant.Config{Settings: map[string]string{}}
	if cfg.FinanceConfirmAbove().FloatString(0) != tenant.DefaultFinanceConfirmAbove {
		t.Fatalf("default %v", cfg.FinanceConfirmAbove())
	}
	cfg.Settings[tenant.KeyFinanceConfirmAbove] = "25000"
	if cfg.FinanceConfirmAbove().FloatString(0) != "25000" {
		t.Fatalf("set %v", cfg.FinanceConfirmAbove())
	}
}

// The console's frame origins come from the tenant's embedded.allowed_origins setting; a
// value that does not parse, an unknown tenant and an id that is not one allow none.
func TestTenantOriginsReadTheSetting(t *testing.T) {
	store := tenanttest.NewStore()
	for id, v := range map[string]string{"acme": "https://a.example.com, https://B.example.com:8443", "broken": "https://a.example.com *"} {
		if err := store.Create(context.Background(), tenant.Config{ID: id, Settings: map[string]string{tenant.KeyEmbeddedAllowedOrigins: v}}); err != nil {
			t.Fatal(err)
		}
	}
	o := tenant.FrameOriginsReader{Tenants: store}
	for id, want := range map[string]string{"acme": "https://a.example.com https://b.example.com:8443", "broken": "", "nobody": "", "ACME x": "", "": ""} {
		got, err := o.FrameOrigins(context.Background(), id)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%s: %v %v, want %q", id, got, err, want)
		}
	}
}

// An http loopback origin (tenantctl stores one, as it sets up local stacks too) frames
// the console only where the stage allows loopback: a deployed console read it as an
// allowed frame ancestor, so any page on http://localhost of a user's machine could frame
// it. The https origins beside it still count.
func TestLoopbackFrameOriginsCountOnlyOnLocalStages(t *testing.T) {
	store := tenanttest.NewStore()
	admin := tenant.Admin{Store: store}
	if _, err := admin.Create(t.Context(), "acme", nil); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(t.Context(), "acme", tenant.KeyEmbeddedAllowedOrigins, "https://a.example.com http://localhost:5173 http://127.0.0.1:8080"); err != nil {
		t.Fatal(err)
	}
	deployed, err := tenant.FrameOriginsReader{Tenants: store}.FrameOrigins(t.Context(), "acme")
	if err != nil || strings.Join(deployed, " ") != "https://a.example.com" {
		t.Fatalf("deployed stage: %v %v, want the https origin alone", deployed, err)
	}
	local, err := tenant.FrameOriginsReader{Tenants: store, LoopbackHTTP: true}.FrameOrigins(t.Context(), "acme")
	if err != nil || strings.Join(local, " ") != "https://a.example.com http://localhost:5173 http://127.0.0.1:8080" {
		t.Fatalf("local stage: %v %v, want all three", local, err)
	}
}

// Origins are kept as a browser serialises them: an explicit default port (or an empty one)
// is dropped. Kept as written, the CSP admitted the ERP's page but the console, comparing
// its parent's origin (location.ancestorOrigins, never with ":443") with embedOrigins,
// refused the embedded session as "not inside your ERP".
func TestFrameOriginsDropDefaultPorts(t *testing.T) {
	got, err := tenant.ParseFrameOrigins("https://A.example.com:443 https://b.example.com: https://c.example.com:8443 http://localhost:80 http://[::1]:80", true)
	want := "https://a.example.com https://b.example.com https://c.example.com:8443 http://localhost http://[::1]"
	if err != nil || strings.Join(got, " ") != want {
		t.Fatalf("%v %v, want %s", got, err, want)
	}
}
