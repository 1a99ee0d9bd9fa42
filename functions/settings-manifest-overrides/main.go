// Command settings-manifest-overrides is the Lambda behind PUT /api/settings/manifest-overrides.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncSettingsOverrides, settings.Routes) }
