// Command finance-approval-reject is the Lambda behind POST /api/finance-ops/approvals/{id}/reject.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncFinanceApprovalReject)
	if err != nil {
		slog.Error("finance-approval-reject: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
