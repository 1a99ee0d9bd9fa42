// Command flow-redrive is the Lambda the five-minute EventBridge schedule runs: it retries
// the flow runs whose transient failure is due, for every tenant.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.Start(blueprint.FuncFlowRedrive, flowwire.RedriveLambda) }
