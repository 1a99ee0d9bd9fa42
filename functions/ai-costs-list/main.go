// Command ai-costs-list is the Lambda behind GET /api/ai/costs.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncAICosts, platform.PlatformRoutes) }
