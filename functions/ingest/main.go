// Command ingest is the Lambda behind POST /api/sync-error-assist/ingest.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror"
)

func main() { platform.StartHTTP(blueprint.FuncIngest, syncerror.Routes) }
