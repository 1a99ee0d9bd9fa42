// Command settings-connector-test is the Lambda behind POST /api/settings/connectors/{system}/test.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
)

func main() { platform.StartHTTP(blueprint.FuncConnectorTest, settings.Routes) }
