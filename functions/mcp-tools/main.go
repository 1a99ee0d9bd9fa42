// Command mcp-tools is the Lambda behind GET /api/mcp/tools.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncMCPTools)
	if err != nil {
		slog.Error("mcp-tools: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
