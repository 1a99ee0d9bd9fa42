// Command governance-approvals is the Lambda behind GET /api/governance/approvals.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceApprovals, platform.PlatformRoutes) }
