// Command governance-loop-detections is the Lambda behind GET /api/governance/loop-detections.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncGovernanceLoops)
	if err != nil {
		slog.Error("governance-loop-detections: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
