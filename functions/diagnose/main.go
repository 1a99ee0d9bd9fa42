// Command diagnose is the Lambda on the diagnosis queue.
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
		slog.Error("diagnose: configuration", "error", err)
		os.Exit(1)
	}
	lambda.Start(deps.Worker().HandleBatch)
}
