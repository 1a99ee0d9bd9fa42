// Command embedded-host-bootstrap is the Lambda behind POST /api/embedded/host/bootstrap.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartSigned(blueprint.FuncEmbeddedHostBootstrap, platform.PlatformRoutes) }
