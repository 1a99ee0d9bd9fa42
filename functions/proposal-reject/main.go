// Command proposal-reject is the Lambda behind POST /api/sync-error-assist/proposals/{id}/reject.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror"
)

func main() { platform.StartHTTP(blueprint.FuncProposalReject, syncerror.Routes) }
