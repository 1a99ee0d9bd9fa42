// Command audit-list is the Lambda behind GET /api/audit.
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
	deps, err := app.Load(context.Background())
	if err != nil {
		slog.Error("audit-list: configuration", "error", err)
		os.Exit(1)
	}
	handler, err := deps.HTTPLambda(blueprint.FuncAuditList)
	if err != nil {
		slog.Error("audit-list: wiring", "error", err)
		os.Exit(1)
	}
	lambda.Start(handler)
}
