// Command ingest is the Lambda behind POST /api/sync-error-assist/ingest.
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
	deps, err := app.Load(context.Background())
	if err != nil {
		slog.Error("ingest: configuration", "error", err)
		os.Exit(1)
	}
	handler, err := deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		slog.Error("ingest: wiring", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
