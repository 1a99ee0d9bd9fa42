// Command governance-approvals is the Lambda behind GET /api/governance/approvals.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceApprovals, guarded.Routes) }
