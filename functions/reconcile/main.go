// Command reconcile is the Lambda the 30-minute EventBridge schedule runs.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.Start(blueprint.FuncReconcile, syncerrorwire.ReconcileLambda) }
