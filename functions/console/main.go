// Command console is the Lambda behind GET / and the console's asset paths: it serves the
// operator console embedded in the binary and the /config.json it reads at start. It
// links no feature and touches no table.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/console"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/version"
)

func main() {
	log := httpapi.NewLogger(slog.LevelInfo)
	log.Info("starting", "function", "console", "version", version.Version, "buildTime", version.BuildTime)
	h := console.Handler(console.ConfigFromEnv(os.Getenv))
	lambda.Start(httpadapter.NewV2(httpapi.Instrument(log, h)).ProxyWithContext)
}
