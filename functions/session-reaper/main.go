// Command session-reaper is the Lambda the hourly EventBridge schedule runs: it deletes
// expired embedded service tokens and contexts.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/syncassist/syncassist/shared/app"
)

func main() {
	deps, err := app.Load(context.Background())
	if err != nil {
		slog.Error("session-reaper: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(deps.ReapSessionsLambda)
}
