package toolcatalog

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
)

// New builds the catalogue on the platform, refining mappings with the AI client c (nil:
// none).
// integration_status reads the sync-error queue's processed table, the one thing the
// catalogue reads from another feature.
func New(b *platform.Base, c *aiclient.Client) *Catalog {
	cat := &Catalog{Claims: dynamo.NewDynamoClaims(b.DB, b.Config.Table(blueprint.Processed)),
		Manifests: b.Manifests(), Ledger: b.Ledger(), Scanner: b.DLP(), Audit: b.Audit,
		External: TenantExternalTools{Tenants: b.Tenants}, Now: b.Clock(), LoopWindow: b.Config.LoopWindow,
		Origins: b.Config.CORSOrigins}
	if c != nil {
		cat.AI = c.Governed
	}
	return cat
}

// Routes are the catalogue's HTTP functions. The catalogue answers even the
// authentication middleware's 401 and 403 in its own envelope.
func Routes(ctx context.Context, b *platform.Base) (platform.Routes, error) {
	ai, err := aiclient.New(ctx, b)
	if err != nil {
		return nil, err
	}
	return RoutesOn(b, ai), nil
}

// ListRoutes is the catalogue listing alone (GET /api/mcp/tools): no AI client and no
// MCP server, so its function links neither.
func ListRoutes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	c := New(b, nil)
	return platform.Routes{blueprint.FuncMCPTools: {Handler: c.ToolsHandler(), Wrap: c.ListEnvelope}}, nil
}

// RoutesOn are the catalogue's routes with the AI client c, for a process that already
// has one (the local stack).
func RoutesOn(b *platform.Base, ai *aiclient.Client) platform.Routes {
	c := New(b, ai)
	return platform.Routes{
		blueprint.FuncMCPTools: {Handler: c.ToolsHandler(), Wrap: c.ListEnvelope},
		blueprint.FuncMCP:      {Handler: c.MCPHandler()},
	}
}
