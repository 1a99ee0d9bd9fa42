// Command knowledge-list is the Lambda behind GET /api/settings/knowledge.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

func main() { platform.StartHTTP(blueprint.FuncKnowledgeList, syncerrorwire.Routes) }
