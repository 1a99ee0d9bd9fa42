// Command governance-approval-approve is the Lambda behind POST /api/governance/approvals/{id}/approve.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncGovernanceApprove)
	if err != nil {
		slog.Error("governance-approval-approve: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
