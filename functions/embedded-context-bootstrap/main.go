// Command embedded-context-bootstrap is the Lambda behind POST /api/embedded/context/bootstrap.
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
		slog.Error("embedded-context-bootstrap: configuration", "error", err)
		os.Exit(1)
	}
	handler, err := deps.HTTPLambda(blueprint.FuncEmbeddedContextBootstrap)
	if err != nil {
		slog.Error("embedded-context-bootstrap: wiring", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
