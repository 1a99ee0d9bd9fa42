// Command governance-ownership-rejections is the Lambda behind GET /api/governance/ownership-rejections.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncGovernanceRejections)
	if err != nil {
		slog.Error("governance-ownership-rejections: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
