// Command flow-settings-put is the Lambda behind PUT /api/settings/flows/{id}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowPut, adminwire.Routes) }
