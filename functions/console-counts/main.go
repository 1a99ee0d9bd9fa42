// Command console-counts is the Lambda behind GET /api/console/counts.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/navcounts"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncConsoleCounts, navcounts.Routes) }
