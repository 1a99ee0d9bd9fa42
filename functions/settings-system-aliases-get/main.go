// Command settings-system-aliases-get is the Lambda behind GET /api/settings/system-aliases.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncSystemAliasesGet, settings.Routes) }
