// Command proposals-bulk is the Lambda behind POST /api/sync-error-assist/proposals/bulk.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncProposalsBulk)
	if err != nil {
		slog.Error("proposals-bulk: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
