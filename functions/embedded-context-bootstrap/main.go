// Command embedded-context-bootstrap is the Lambda behind POST /api/embedded/context/bootstrap.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartSigned(blueprint.FuncEmbeddedContextBootstrap, platform.PlatformRoutes) }
