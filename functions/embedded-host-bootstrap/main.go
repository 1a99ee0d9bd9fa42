// Command embedded-host-bootstrap is the Lambda behind POST /api/embedded/host/bootstrap.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncEmbeddedHostBootstrap)
	if err != nil {
		slog.Error("embedded-host-bootstrap: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
