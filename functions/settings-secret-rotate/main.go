// Command settings-secret-rotate is the Lambda behind POST /api/settings/webhook-secret/rotate.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncSettingsRotate, settings.Routes) }
