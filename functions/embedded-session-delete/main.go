// Command embedded-session-delete is the Lambda behind DELETE /api/embedded/session.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartSigned(blueprint.FuncEmbeddedSessionDelete, platform.PlatformRoutes) }
