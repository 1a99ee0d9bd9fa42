// Command ai-traces-list is the Lambda behind GET /api/ai/traces.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncAITraces)
	if err != nil {
		slog.Error("ai-traces-list: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
