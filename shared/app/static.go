package app

import (
	"net/http"
	"os"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/console"
)

// StaticRoutes are the console and the OpenAPI document, for a process that mounts every
// route (the local stack, the tests). The Lambdas of those two routes serve them straight
// from their own mains; set them on Deps.Static only where every route is mounted.
func StaticRoutes() map[string]http.Handler {
	return map[string]http.Handler{
		blueprint.FuncConsole: console.Handler(console.ConfigFromEnv(os.Getenv)),
		blueprint.FuncOpenAPI: apidoc.Handler(),
	}
}
