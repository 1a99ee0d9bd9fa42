// Command approval-policy-put is the Lambda behind PUT /api/settings/approval-policy.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncApprovalPolicyPut, syncerrorwire.Routes) }
