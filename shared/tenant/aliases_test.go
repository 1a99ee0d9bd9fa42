package tenant_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// The names hosts send resolve to the connector systems (issue 33 §4): vendor names and
// spellings by default, any case and spacing; a system key resolves to itself.
func TestResolveSystemDefaults(t *testing.T) {
	var c tenant.Config
	for name, want := range map[string]connector.System{
		"Business Central":                        connector.SystemERP2,
		"  business central ":                     connector.SystemERP2,
		"Dynamics 365 Business Central":           connector.SystemERP2,
		"Microsoft Dynamics 365 Business Central": connector.SystemERP2,
		"BC":              connector.SystemERP2,
		"ShipStation":     connector.SystemShipping,
		"SALESFORCE":      connector.SystemCRM,
		"SFDC":            connector.SystemCRM,
		"MailChimp":       connector.SystemMarketing,
		"NetSuite":        connector.SystemHostERP,
		"Oracle NetSuite": connector.SystemHostERP,
		"erp2":            connector.SystemERP2,
		"CRM":             connector.SystemCRM,
	} {
		if got, ok := c.ResolveSystem(name); !ok || got != want {
			t.Errorf("ResolveSystem(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "  ", "webshop", "Business"} {
		if got, ok := c.ResolveSystem(name); ok {
			t.Errorf("ResolveSystem(%q) = %q; want none", name, got)
		}
	}
}

// A tenant's own aliases extend the defaults and override one of the same name in any case.
func TestResolveSystemTenantAliases(t *testing.T) {
	c := tenant.Config{SystemAliases: map[string]string{"Our Shop": "marketing", "bc": "crm"}}
	for name, want := range map[string]connector.System{
		"our shop": connector.SystemMarketing, "BC": connector.SystemCRM, "Business Central": connector.SystemERP2,
	} {
		if got, ok := c.ResolveSystem(name); !ok || got != want {
			t.Errorf("ResolveSystem(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	m := c.SystemAliasMap()
	if m["bc"] != "crm" || m["BC"] != "" || m["Our Shop"] != "marketing" || m["ShipStation"] != "shipping" {
		t.Errorf("alias map = %v", m)
	}
	if got := c.NamesOf(connector.SystemERP2); !slices.Equal(got, []string{"erp2", "Business Central",
		"Dynamics 365 Business Central", "Microsoft Dynamics 365 Business Central"}) {
		t.Errorf("NamesOf(erp2) = %v", got)
	}
}

func TestCheckSystemAliases(t *testing.T) {
	bad := tenant.CheckSystemAliases(map[string]string{"": "erp2", " ": "crm", "Erp2": "crm", "Shop": "webshop",
		"Our Shop": "crm", "our shop": "crm", "ok": "shipping", "tab\tname": "crm"})
	for _, name := range []string{"", " ", "Erp2", "Shop", "our shop", "tab\tname"} {
		if bad[name] == "" {
			t.Errorf("%q accepted", name)
		}
	}
	if bad["ok"] != "" || bad["Our Shop"] != "" {
		t.Errorf("valid names refused: %v", bad)
	}
	if len(tenant.CheckSystemAliases(map[string]string{})) != 0 {
		t.Error("an empty set is refused")
	}
}

// SetSystemAliases replaces the set whole, trimmed; a refused set changes nothing.
func TestAdminSetSystemAliases(t *testing.T) {
	ctx := context.Background()
	a := tenant.Admin{Store: tenanttest.NewStore()}
	if _, err := a.Create(ctx, "acme", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetSystemAliases(ctx, "acme", map[string]string{" Business Central EU ": "erp2"}); err != nil {
		t.Fatal(err)
	}
	var ae *tenant.AliasError
	if _, err := a.SetSystemAliases(ctx, "acme", map[string]string{"x": "nowhere"}); !errors.As(err, &ae) || ae.Problems["x"] == "" {
		t.Fatalf("bad set: %v", err)
	}
	c, _ := a.Store.Get(ctx, "acme")
	if got, ok := c.ResolveSystem("business central eu"); !ok || got != connector.SystemERP2 || len(c.SystemAliases) != 1 {
		t.Fatalf("stored %v", c.SystemAliases)
	}
	before, err := a.SetSystemAliases(ctx, "acme", map[string]string{})
	if err != nil || before["Business Central EU"] != "erp2" {
		t.Fatalf("clear: before %v, %v", before, err)
	}
	if c, _ = a.Store.Get(ctx, "acme"); len(c.SystemAliases) != 0 {
		t.Fatalf("not cleared: %v", c.SystemAliases)
	}
}
