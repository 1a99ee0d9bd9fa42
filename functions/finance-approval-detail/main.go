// Command finance-approval-detail is the Lambda behind GET /api/finance-ops/approvals/{id}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFinanceApprovalDetail, finance.Routes) }
