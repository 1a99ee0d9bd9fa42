//go:build !linux

package emulators

import "os/exec"

// dieWithParent has no portable equivalent outside Linux; Stop still ends the emulators.
func dieWithParent(*exec.Cmd) {}
