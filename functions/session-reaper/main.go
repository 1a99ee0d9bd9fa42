// Command session-reaper is the Lambda the hourly EventBridge schedule runs: it deletes
// expired embedded service tokens and contexts.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.Start(blueprint.FuncSessionReaper, platform.ReapSessions) }
