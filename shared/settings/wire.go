package settings

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
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
		Overrides: b.GovernanceStore(), Audit: b.Audit, LocalConnectors: b.Config.ConnectorsAllowLocal}
}

// Routes are the settings' HTTP functions.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	s := New(b)
	return platform.Routes{
		blueprint.FuncSettingsGet:       {Handler: s.GetHandler()},
		blueprint.FuncSettingsPatch:     {Handler: s.PatchHandler()},
		blueprint.FuncSettingsOverrides: {Handler: s.OverridesHandler()},
		blueprint.FuncSettingsRotate:    {Handler: s.RotateHandler()},
	}, nil
}
