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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncEmbeddedSessionDelete)
	if err != nil {
		slog.Error("embedded-session-delete: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
