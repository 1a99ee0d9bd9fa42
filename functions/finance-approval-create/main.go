// Command finance-approval-create is the Lambda behind POST /api/finance-ops/approvals.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartSigned(blueprint.FuncFinanceApprovalCreate, finance.Routes) }
