// Command flow-settings-dry-run is the Lambda behind POST /api/settings/flows/{id}/dry-run.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowDryRun, adminwire.Routes) }
