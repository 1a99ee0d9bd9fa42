// Command automation-list is the Lambda behind GET /api/sync-error-assist/automation.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncAutomationList, syncerrorwire.Routes) }
