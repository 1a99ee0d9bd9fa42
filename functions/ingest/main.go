// Command ingest is the Lambda behind POST /api/sync-error-assist/ingest. It builds the
// webhook alone (ingestwire), not the queue's operator routes, and starts signed (the
// webhook verifies its caller), so it links no guard, operator authentication,
// connector or EventBridge client.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror/ingestwire"
)

func main() { platform.StartSigned(blueprint.FuncIngest, ingestwire.Routes) }
