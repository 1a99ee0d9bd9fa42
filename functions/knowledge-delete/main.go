// Command knowledge-delete is the Lambda behind DELETE /api/settings/knowledge/{id}.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncKnowledgeDelete, syncerrorwire.Routes) }
