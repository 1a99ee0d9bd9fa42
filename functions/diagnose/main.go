// Command diagnose is the Lambda on the diagnosis queue.
package main

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror/aidiagnoser"
)

func main() { platform.Start(blueprint.FuncDiagnose, aidiagnoser.Lambda) }
