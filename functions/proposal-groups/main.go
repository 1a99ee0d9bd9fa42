// Command proposal-groups is the Lambda behind GET /api/sync-error-assist/proposal-groups.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncProposalGroups, syncerrorwire.Routes) }
