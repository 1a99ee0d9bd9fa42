// Command proposal-detail is the Lambda behind GET /api/sync-error-assist/proposals/{id}.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncProposalDetail)
	if err != nil {
		slog.Error("proposal-detail: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
