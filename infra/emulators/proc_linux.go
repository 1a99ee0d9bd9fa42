package emulators

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the emulator when the process that started it exits,
// however it exits, so a crashed test run leaves no emulator behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
