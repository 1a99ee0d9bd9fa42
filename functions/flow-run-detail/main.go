// Command flow-run-detail is the Lambda behind GET /api/flows/runs/{id}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowRunDetail, adminwire.Routes) }
