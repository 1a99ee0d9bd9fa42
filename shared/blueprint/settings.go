package blueprint

import "time"

// Settings function names: a tenant's flags, connectors, manifest overrides and secrets.
const (
	FuncSettingsGet       = "settings-get"
	FuncSettingsPatch     = "settings-patch"
	FuncSettingsOverrides = "settings-manifest-overrides"
	FuncSettingsRotate    = "settings-secret-rotate"
	FuncConnectorTest     = "settings-connector-test"
	// The tenant's system names: the names its hosts send for its systems (issue 33 §4).
	FuncSystemAliasesGet = "settings-system-aliases-get"
	FuncSystemAliasesPut = "settings-system-aliases-put"
)

// Settings routes, admins only, 15 s each. A change seals connector tokens and a rotation
// secrets (neither opens one); manifest overrides live in the governance table. The
// embedded settings module reaches the read and the change of settings (where an embedded
// session may change flags only); manifest overrides and secret rotation are for signed-in
// admins.
var settingsFunctions = []Function{
	{Name: FuncSettingsGet, Description: "Shows the tenant's settings, connectors (no credentials) and secret dates (admins)",
		Route:  &Route{Method: "GET", Path: "/api/settings", Auth: AuthAdmin, Module: "settings"},
		Tables: []TableGrant{{&Tenants, Read}, {&Governance, Read}}, Timeout: 15 * time.Second, MemoryMB: 256},
	{Name: FuncSettingsPatch, Description: "Changes the tenant's settings and connectors, validated and audited (admins)",
		Route:  &Route{Method: "PATCH", Path: "/api/settings", Auth: AuthAdmin, Module: "settings"},
		Tables: []TableGrant{{&Tenants, ReadWrite}, {&Governance, Read}, {&Audit, Append}}, SealsSecrets: true,
		Timeout: 15 * time.Second, MemoryMB: 256},
	{Name: FuncSettingsOverrides, Description: "Replaces the tenant's ownership manifest overrides (admins)",
		Route:  &Route{Method: "PUT", Path: "/api/settings/manifest-overrides", Auth: AuthAdmin},
		Tables: []TableGrant{{&Tenants, Read}, {&Governance, ReadWrite}, {&Audit, Append}}, Timeout: 15 * time.Second, MemoryMB: 256},
	{Name: FuncSettingsRotate, Description: "Rotates a host secret; the previous one verifies for 24 hours (admins)",
		Route:  &Route{Method: "POST", Path: "/api/settings/webhook-secret/rotate", Auth: AuthAdmin},
		Tables: []TableGrant{{&Tenants, ReadWrite}, {&Governance, Read}, {&Audit, Append}}, SealsSecrets: true,
		Timeout: 15 * time.Second, MemoryMB: 256},
	// The check opens the connector's credential and makes one read with it.
	{Name: FuncConnectorTest, Description: "Checks a connector: one harmless authenticated read through the SSRF guard, audited (admins)",
		Route:  &Route{Method: "POST", Path: "/api/settings/connectors/{system}/test", Auth: AuthAdmin},
		Tables: []TableGrant{{&Tenants, Read}, {&Audit, Append}}, OpensSecrets: true, Timeout: 15 * time.Second, MemoryMB: 256},
	// The names are plain attributes: reading them needs no secret-bearing read.
	{Name: FuncSystemAliasesGet, Description: "Shows the tenant's system names: its own and the defaults (admins)",
		Route:  &Route{Method: "GET", Path: "/api/settings/system-aliases", Auth: AuthAdmin},
		Tables: []TableGrant{{&Tenants, SettingsOnly}}, Timeout: 15 * time.Second, MemoryMB: 256},
	{Name: FuncSystemAliasesPut, Description: "Replaces the tenant's own system names, validated and audited (admins)",
		Route:  &Route{Method: "PUT", Path: "/api/settings/system-aliases", Auth: AuthAdmin},
		Tables: []TableGrant{{&Tenants, ReadWrite}, {&Audit, Append}}, Timeout: 15 * time.Second, MemoryMB: 256},
}
