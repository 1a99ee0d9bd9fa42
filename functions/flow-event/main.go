// Command flow-event is the Lambda behind POST /api/flows/events/{system}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartSigned(blueprint.FuncFlowEvent, flowwire.EventRoutes) }
