// Command proposal-approve is the Lambda behind POST /api/sync-error-assist/proposals/{id}/approve.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror"
)

func main() { platform.StartHTTP(blueprint.FuncProposalApprove, syncerror.Routes) }
