// Command governance-approvals is the Lambda behind GET /api/governance/approvals.
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
	handler, err := app.HTTPLambdaFromEnv(context.Background(), blueprint.FuncGovernanceApprovals)
	if err != nil {
		slog.Error("governance-approvals: startup", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
