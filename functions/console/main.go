// Command console is the Lambda behind GET / and the console's asset paths: it serves the
// operator console embedded in the binary, the /config.json it reads at start, and each
// tenant's frame-ancestors (read from the tenant's settings alone).
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/consolesite"
)

func main() { platform.StartSigned(blueprint.FuncConsole, consolesite.Routes) }
