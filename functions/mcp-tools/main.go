// Command mcp-tools is the Lambda behind GET /api/mcp/tools.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

func main() { platform.StartHTTP(blueprint.FuncMCPTools, toolcatalog.ListRoutes) }
