// Command flow-settings-delete is the Lambda behind DELETE /api/settings/flows/{id}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowDelete, adminwire.Routes) }
