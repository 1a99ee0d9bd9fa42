// Command flow-poll is the Lambda the 30-minute EventBridge schedule runs: it reads the
// records that source systems without change events changed, and runs their poll flows.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.Start(blueprint.FuncFlowPoll, flowwire.PollLambda) }
