package main

import (
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// An operator names a system as the tenant's hosts send it, lists the names in force and
// removes one; each change is audited, and a refused one changes nothing.
func TestAliases(t *testing.T) {
	t.Parallel()
	c, store, audits := testCLI("")
	mustRun(t, c, "create", "acme")
	if out := mustRun(t, c, "alias", "acme", "BC Europe", "erp2"); !strings.Contains(out, `"BC Europe" resolves to erp2`) {
		t.Fatalf("output %q", out)
	}
	if sys, ok := getTenant(t, store, "acme").ResolveSystem("bc europe"); !ok || sys != connector.SystemERP2 {
		t.Fatalf("stored %v", getTenant(t, store, "acme").SystemAliases)
	}
	out := mustRun(t, c, "aliases", "acme")
	lines := map[string]string{}
	for l := range strings.Lines(out) {
		lines[strings.TrimSpace(strings.Split(l, "→")[0])] = strings.TrimSpace(l)
	}
	if !strings.HasSuffix(lines[`"BC Europe"`], "→ erp2") || !strings.HasSuffix(lines[`"Business Central"`], "→ erp2 (default)") {
		t.Fatalf("aliases:\n%s", out)
	}
	for _, bad := range [][]string{{"alias", "acme", "Webshop", "sap"}, {"alias", "acme", " ", "crm"},
		{"alias", "acme", "Business Central"}} {
		if _, err := runCommand(t, c, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if got := getTenant(t, store, "acme").SystemAliases; len(got) != 1 {
		t.Fatalf("a refused alias changed the set: %v", got)
	}
	mustRun(t, c, "alias", "acme", "BC Europe")
	if got := getTenant(t, store, "acme").SystemAliases; len(got) != 0 {
		t.Fatalf("not removed: %v", got)
	}
	var keys []string
	for _, r := range audits.All() {
		keys = append(keys, r.ActionKey+"/"+r.Actor.Actor)
	}
	if want := "settings.system_aliases/tenantctl:tester settings.system_aliases/tenantctl:tester"; strings.Join(keys, " ") != want {
		t.Fatalf("audited %v", keys)
	}
}
