// Command governance-approval-deny is the Lambda behind POST /api/governance/approvals/{id}/deny.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncGovernanceDeny)
	if err != nil {
		slog.Error("governance-approval-deny: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
