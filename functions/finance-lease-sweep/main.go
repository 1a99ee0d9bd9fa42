// Command finance-lease-sweep is the Lambda the five-minute EventBridge schedule runs: it returns
// finance approvals whose approve lease expired to pending, for every tenant.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.Start(blueprint.FuncFinanceLeaseSweep, finance.SweepLambda) }
