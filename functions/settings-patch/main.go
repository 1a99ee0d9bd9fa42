// Command settings-patch is the Lambda behind PATCH /api/settings.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncSettingsPatch, settings.Routes) }
