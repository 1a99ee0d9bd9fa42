// Command sync-error-insights is the Lambda behind GET /api/sync-error-assist/insights.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncInsights, syncerrorwire.Routes) }
