// Command governance-approval-approve is the Lambda behind POST /api/governance/approvals/{id}/approve.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceApprove, platform.PlatformRoutes) }
