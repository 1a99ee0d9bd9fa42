// Command governance-ownership-rejections is the Lambda behind GET /api/governance/ownership-rejections.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceRejections, guarded.Routes) }
