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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncEmbeddedContextBootstrap)
	if err != nil {
		slog.Error("embedded-context-bootstrap: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
