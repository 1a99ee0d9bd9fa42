// Command finance-approvals-list is the Lambda behind GET /api/finance-ops/approvals.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncFinanceApprovalsList)
	if err != nil {
		slog.Error("finance-approvals-list: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
