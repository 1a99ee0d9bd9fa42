// Command audit-list is the Lambda behind GET /api/audit.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncAuditList, platform.PlatformRoutes) }
