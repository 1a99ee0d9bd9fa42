// Command ai-costs-list is the Lambda behind GET /api/ai/costs.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncAICosts)
	if err != nil {
		slog.Error("ai-costs-list: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
