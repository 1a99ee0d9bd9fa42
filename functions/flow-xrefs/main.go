// Command flow-xrefs is the Lambda behind GET /api/flows/xrefs.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowXRefs, adminwire.Routes) }
