// Command governance-approval-deny is the Lambda behind POST /api/governance/approvals/{id}/deny.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceDeny, platform.PlatformRoutes) }
