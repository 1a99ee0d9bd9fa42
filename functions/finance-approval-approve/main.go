// Command finance-approval-approve is the Lambda behind POST /api/finance-ops/approvals/{id}/approve.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/syncassist/syncassist/shared/app"
	"github.com/syncassist/syncassist/shared/blueprint"
)

func main() {
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncFinanceApprovalApprove)
	if err != nil {
		slog.Error("finance-approval-approve: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
