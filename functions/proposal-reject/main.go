// Command proposal-reject is the Lambda behind POST /api/sync-error-assist/proposals/{id}/reject.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncProposalReject)
	if err != nil {
		slog.Error("proposal-reject: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
