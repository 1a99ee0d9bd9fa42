//go:build !linux

package emulators

import (
	"errors"
	"os/exec"
	"time"
)

// startDyingWithParent starts cmd. Outside Linux there is no portable way to have the
// kernel end it with this process; Stop still ends the emulators.
func startDyingWithParent(cmd *exec.Cmd) error { return cmd.Start() }

// listensOn cannot tell outside Linux which process holds a port, so it says yes.
func listensOn(pid, port int) bool { return true }

// processCPU is known only from Linux's /proc.
func processCPU(pid int) (time.Duration, error) {
	return 0, errors.New("the CPU time of a process is read from Linux's /proc only")
}
