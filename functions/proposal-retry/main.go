// Command proposal-retry is the Lambda behind POST /api/sync-error-assist/proposals/{id}/retry.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncProposalRetry, syncerrorwire.Routes) }
