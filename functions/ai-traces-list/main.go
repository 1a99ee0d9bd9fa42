// Command ai-traces-list is the Lambda behind GET /api/ai/traces.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncAITraces, platform.PlatformRoutes) }
