package emulators

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// startDyingWithParent starts cmd so that the kernel kills it when this process exits,
// however it exits, so a crashed test run leaves no emulator behind.
//
// Pdeathsig fires when the *thread* that forked the child exits, not the process
// (golang/go#27505), and the Go runtime ends a thread whose locked goroutine exits. So
// every emulator is started from one goroutine locked to a thread that is never released:
// the signal then comes only with the process. Started from whichever thread ran the
// caller, an emulator could be SIGKILLed mid-run without a word, which is how a browser
// run's dynalite once vanished (the cause is inferred, not caught in the act).
func startDyingWithParent(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	done := make(chan error, 1)
	spawner() <- spawn{cmd, done}
	return <-done
}

type spawn struct {
	cmd  *exec.Cmd
	done chan<- error
}

var spawner = sync.OnceValue(func() chan<- spawn {
	ch := make(chan spawn)
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for s := range ch {
			s.done <- s.cmd.Start()
		}
	}()
	return ch
})
