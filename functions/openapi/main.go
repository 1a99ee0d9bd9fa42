// Command openapi is the Lambda behind GET /api/openapi.json: the API's OpenAPI 3.1
// document, public and embedded in the binary.
package main

import (
	"log/slog"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/version"
)

func main() {
	log := httpapi.NewLogger(slog.LevelInfo)
	log.Info("starting", "function", "openapi", "version", version.Version, "buildTime", version.BuildTime)
	lambda.Start(httpadapter.NewV2(httpapi.Instrument(log, apidoc.Handler())).ProxyWithContext)
}
