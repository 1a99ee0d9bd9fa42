// Command settings-system-aliases-put is the Lambda behind PUT /api/settings/system-aliases.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncSystemAliasesPut, settings.Routes) }
