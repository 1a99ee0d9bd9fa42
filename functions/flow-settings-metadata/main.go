// Command flow-settings-metadata is the Lambda behind GET /api/settings/connectors/{system}/metadata.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/platform"
)

func main() { platform.StartHTTP(blueprint.FuncFlowMetadata, adminwire.Routes) }
