// Command reconcile is the Lambda the 30-minute EventBridge schedule runs.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror/queuewire"
)

func main() { platform.Start(blueprint.FuncReconcile, queuewire.ReconcileLambda) }
