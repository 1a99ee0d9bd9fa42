// Command mcp is the Lambda behind POST /api/mcp.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncMCP)
	if err != nil {
		slog.Error("mcp: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
