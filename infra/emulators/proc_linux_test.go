package emulators

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exitsWithin reports whether cmd ends within d.
func exitsWithin(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return false
	}
}

// startFromDyingThread starts cmd with start from a goroutine that exits locked to its
// thread, which the runtime then ends.
func startFromDyingThread(t *testing.T, cmd *exec.Cmd, start func(*exec.Cmd) error) {
	t.Helper()
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		errc <- start(cmd)
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestAnEmulatorOutlivesTheThreadThatAskedForIt(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	startFromDyingThread(t, cmd, startDyingWithParent)
	if exitsWithin(cmd, time.Second) {
		t.Fatal("the child died with the thread that asked for it, not with the process")
	}
}

// The hazard itself, so the test above means something: Pdeathsig set and the child
// forked on a thread that ends kills the child.
func TestPdeathsigFollowsTheForkingThread(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	startFromDyingThread(t, cmd, func(c *exec.Cmd) error {
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return c.Start()
	})
	if !exitsWithin(cmd, 5*time.Second) {
		t.Skip("this kernel or runtime kept the forking thread; the hazard did not show")
	}
}

// moto_server is a Python program behind a pyenv shim here; the shim and pyenv exec it in
// the same process, so the process Stop kills is the server itself.
func TestMotoStopsItsServer(t *testing.T) {
	m, err := StartMoto(context.Background(), MotoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pid := m.em.cmd.Process.Pid
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !strings.HasPrefix(filepath.Base(exe), "python") || !strings.Contains(string(cmdline), "moto_server") {
		t.Fatalf("process %d is %s %q (%v), want python running moto_server", pid, exe, cmdline, err)
	}
	m.Stop()
	if _, err := http.Get(m.Server + MotoReadyPath); err == nil {
		t.Fatal("moto_server still answers after Stop")
	}
	if _, err := http.Get(m.Endpoint + MotoReadyPath); err == nil {
		t.Fatal("the gate still answers after Stop")
	}
}
