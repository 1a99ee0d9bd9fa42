// Command proposal-groups is the Lambda behind GET /api/sync-error-assist/proposal-groups.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncProposalGroups)
	if err != nil {
		slog.Error("proposal-groups: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
