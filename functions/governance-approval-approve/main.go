// Command governance-approval-approve is the Lambda behind POST /api/governance/approvals/{id}/approve.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceApprove, guarded.Routes) }
