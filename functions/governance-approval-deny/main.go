// Command governance-approval-deny is the Lambda behind POST /api/governance/approvals/{id}/deny.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceDeny, guarded.Routes) }
