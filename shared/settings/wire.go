package settings

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/tenant"
)

// EnvLocalConnectors names the variable that allows local connector URLs (saved here, and
// reached by the connectors); only the local stack and the tests set it, and the CDK stack
// never does (a template test holds that).
const EnvLocalConnectors = platform.EnvConnectorsAllowLocal

// New builds the settings service on the platform.
func New(b *platform.Base) *Service {
	m, _ := b.Manifests().(*governance.TenantManifests)
	return &Service{Admin: tenant.Admin{Store: b.Tenants, Now: b.Clock(), Keeper: b.Keeper}, Manifests: m,
		Overrides: b.GovernanceStore(), Audit: b.Audit, LocalConnectors: b.Config.ConnectorsAllowLocal,
		Checker: RegistryChecker{guarded.Connectors(b)}}
}

// RegistryChecker checks connections with the tenants' connector clients, the ones every
// connector call uses, rebuilt from the tenant's configuration as it is now.
type RegistryChecker struct{ Connectors *connector.Registry }

// Check implements Checker.
func (c RegistryChecker) Check(ctx context.Context, tenantID string, system connector.System) (string, error) {
	// A connector changed a moment ago is checked as it is now, not as cached.
	c.Connectors.Forget(tenantID, system)
	client, err := c.Connectors.Client(ctx, tenantID, system)
	if err != nil {
		return "", err
	}
	return client.Check(ctx)
}

// Routes are the settings' HTTP functions.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	s := New(b)
	aliases := Aliases{Service: s, Reader: b.TenantsFor()}
	return platform.Routes{
		blueprint.FuncSettingsGet:       {Handler: s.GetHandler()},
		blueprint.FuncSettingsPatch:     {Handler: s.PatchHandler()},
		blueprint.FuncSettingsOverrides: {Handler: s.OverridesHandler()},
		blueprint.FuncSettingsRotate:    {Handler: s.RotateHandler()},
		blueprint.FuncConnectorTest:     {Handler: s.ConnectorCheckHandler()},
		blueprint.FuncSystemAliasesGet:  {Handler: aliases.GetHandler()},
		blueprint.FuncSystemAliasesPut:  {Handler: aliases.PutHandler()},
	}, nil
}
