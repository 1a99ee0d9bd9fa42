// Command embedded-session-delete is the Lambda behind DELETE /api/embedded/session.
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
		slog.Error("embedded-session-delete: configuration", "error", err)
		os.Exit(1)
	}
	handler, err := deps.HTTPLambda(blueprint.FuncEmbeddedSessionDelete)
	if err != nil {
		slog.Error("embedded-session-delete: wiring", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
