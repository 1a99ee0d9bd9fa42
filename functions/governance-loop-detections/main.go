// Command governance-loop-detections is the Lambda behind GET /api/governance/loop-detections.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

func main() { platform.StartHTTP(blueprint.FuncGovernanceLoops, guarded.Routes) }
