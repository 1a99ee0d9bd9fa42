//go:build !linux

package emulators

import "os/exec"

// startDyingWithParent starts cmd. Outside Linux there is no portable way to have the
// kernel end it with this process; Stop still ends the emulators.
func startDyingWithParent(cmd *exec.Cmd) error { return cmd.Start() }
