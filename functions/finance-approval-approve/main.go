// Command finance-approval-approve is the Lambda behind POST /api/finance-ops/approvals/{id}/approve.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFinanceApprovalApprove, finance.Routes) }
