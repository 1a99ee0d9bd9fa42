// Package consolesite wires the console's function: the single-page app of shared/console
// with each tenant's frame origins read from its settings. The console serves files and
// knows no owner of data; this composition root hands it the tenants' settings.
package consolesite

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/console"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Routes serves the console on b, reading each tenant's frame origins from its settings
// alone (through the tenant cache, so a change reaches framing within its TTL). http
// loopback origins frame it only where the stage allows local addresses (the local stack,
// whose browser tests frame it from http://localhost), as settings validation does.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	h := console.Handler(console.ConfigFromEnv(b.Getenv),
		tenant.FrameOriginsReader{Tenants: b.TenantSettings(), LoopbackHTTP: b.Config.ConnectorsAllowLocal})
	return platform.Routes{blueprint.FuncConsole: {Handler: h}}, nil
}
