// Command mcp is the Lambda behind POST /api/mcp.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

func main() { platform.StartHTTP(blueprint.FuncMCP, toolcatalog.Routes) }
