// Command proposals-bulk is the Lambda behind POST /api/sync-error-assist/proposals/bulk.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror"
)

func main() { platform.StartHTTP(blueprint.FuncProposalsBulk, syncerror.Routes) }
