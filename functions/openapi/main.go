// Command openapi is the Lambda behind GET /api/openapi.json: the API's OpenAPI 3.1
// document, public and embedded in the binary. It is also behind the deployed API's
// $default route (blueprint.UnroutedFunction): what no route matches answers 405 with
// Allow or 404 problem+json, as the local stack answers it (unrouted.Handler).
package main

import (
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/platform/unrouted"
	"github.com/syncassist/syncassist/shared/version"
)

func main() {
	log := httpapi.NewLogger(slog.LevelInfo)
	log.Info("starting", "function", "openapi", "version", version.Version, "buildTime", version.BuildTime)
	h := unrouted.Handler(blueprint.HTTPFunctions(), map[string]http.Handler{blueprint.FuncOpenAPI: apidoc.Handler()})
	lambda.Start(httpadapter.NewV2(httpapi.Instrument(log, h)).ProxyWithContext)
}
