// Command proposal-triage is the Lambda behind POST /api/sync-error-assist/proposals/{id}/triage.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncProposalTriage, syncerrorwire.Routes) }
