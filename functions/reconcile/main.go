// Command reconcile is the Lambda the 30-minute EventBridge schedule runs.
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
		slog.Error("reconcile: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(deps.ReconcileLambda)
}
