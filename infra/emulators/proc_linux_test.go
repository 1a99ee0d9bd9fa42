package emulators

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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

// listensOn tells this process's listener from another's.
func TestListensOnNamesTheProcessHoldingThePort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	if !listensOn(os.Getpid(), port) {
		t.Fatalf("listensOn(this process, %d) = false, want true", port)
	}
	if listensOn(other.Process.Pid, port) {
		t.Fatalf("listensOn(sleep, %d) = true, want false: sleep listens nowhere", port)
	}
}

// Two processes can draw the same port at once: an emulator whose port another process
// took exits, and the answer there is not its own. It starts again on a port drawn anew
// and is ready only when it answers itself; a port the caller fixed is not changed, and
// the error says why. Either holds whether the readiness wait sees the emulator still
// running or already exited and reaped (as on a loaded machine, CI 2026-12-01).
func TestAnEmulatorWhosePortWasTakenStartsOnAnother(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 serves as the emulator here:", err)
	}
	taker := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer taker.Close()
	taken := taker.Listener.Addr().(*net.TCPAddr).Port
	for _, drawn := range []bool{true, false} {
		for _, exitedFirst := range []bool{false, true} {
			em := &emulator{name: "server", program: python, port: taken, drawn: drawn, probe: sqsProbe, log: io.Discard,
				command: func(port int) ([]string, []string) {
					return []string{"-m", "http.server", "--bind", "127.0.0.1", strconv.Itoa(port)}, nil
				}}
			if err := em.start(); err != nil {
				t.Fatal(err)
			}
			if exitedFirst {
				<-em.exited
			}
			ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
			err := em.ready(ctx)
			cancel()
			switch {
			case drawn && (err != nil || em.port == taken || !listensOn(em.cmd.Process.Pid, em.port)):
				t.Errorf("drawn port, exited first %v: ready = %v on port %d (taken: %d), want ready on a port of its own", exitedFirst, err, em.port, taken)
			case !drawn && (!errors.Is(err, errPortTaken) || em.port != taken):
				t.Errorf("fixed port, exited first %v: ready = %v on port %d, want errPortTaken on %d", exitedFirst, err, em.port, taken)
			}
			em.kill()
		}
	}
}

// An emulator that dies under a test is named afterwards with its exit, so the test's
// "connection refused" has a cause in the log; one killed on purpose is not.
func TestExitedNamesAnEmulatorThatDiedOnItsOwn(t *testing.T) {
	e, err := Start(context.Background(), Options{NoSQS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if err := e.Exited(); err != nil {
		t.Fatalf("Exited before anything died = %v", err)
	}
	_ = e.dynamo.cmd.Process.Signal(syscall.SIGTERM)
	<-e.dynamo.exited
	if err := e.Exited(); err == nil || !strings.Contains(err.Error(), "dynalite on port") || !strings.Contains(err.Error(), "signal: terminated") {
		t.Fatalf("Exited after dynalite was terminated = %v, want dynalite named with its signal", err)
	}
	e.KillDynamoDB()
	if err := e.Exited(); err != nil {
		t.Fatalf("Exited after KillDynamoDB = %v, want nil: a kill on purpose is no death", err)
	}
}
