// Command proposal-approve is the Lambda behind POST /api/sync-error-assist/proposals/{id}/approve.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncProposalApprove)
	if err != nil {
		slog.Error("proposal-approve: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
