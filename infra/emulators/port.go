package emulators

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// errPortTaken says an emulator found its drawn port held by another process.
var errPortTaken = errors.New("the port was taken by another process")

// redraws bounds how often ready draws a new port for an emulator that lost its port.
const redraws = 3

// usePort sets the port em listens on: fixed, or drawn by portOrFree when fixed is 0.
func (em *emulator) usePort(fixed int) error {
	port, err := portOrFree(fixed)
	if err != nil {
		return err
	}
	em.port, em.drawn = port, fixed == 0
	return nil
}

// ready waits (waitReady) until the started em answers on its port itself. Two processes
// drawing ports at once can draw the same one (portOrFree checks only that it is free
// then): both start an emulator there, one binds, the other exits for want of the port,
// and both probes are answered by the one that bound, so a test binary ran against
// another binary's dynalite until that binary stopped it ("connection refused" in the
// middle of a test, CI 2026-12-01). So an answer counts only from em's own process, and
// an em that exits while another answers on its port starts again on a port drawn anew.
func (em *emulator) ready(ctx context.Context) error {
	for n := 0; ; n++ {
		err := em.waitReady(ctx)
		if !errors.Is(err, errPortTaken) || !em.drawn || n == redraws {
			return err
		}
		em.kill()
		if err := em.usePort(0); err != nil {
			return err
		}
		if err := em.start(); err != nil {
			return err
		}
	}
}

// portOrFree is p, or a port free now for an emulator to listen on once it has started.
// Between this check and the emulator's bind, another process could take the port, and
// one asking the system for any free port (port 0: every httptest server and stack of the
// test lanes running beside) gets it from the ephemeral range. So the port is drawn at
// random from below that range (ip_local_port_range), where only callers of this function
// choose, and the ephemeral range is used only where that cannot be read. Two callers can
// still draw the same port at once; ready settles that.
func portOrFree(p int) (int, error) {
	if p != 0 {
		return p, nil
	}
	if low := ephemeralLow(); low > minDrawnPort+1000 {
		for range 50 {
			port := minDrawnPort + rand.IntN(low-minDrawnPort)
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
				l.Close()
				return port, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// minDrawnPort keeps drawn ports above the well-known services' and below the ephemeral
// range.
const minDrawnPort = 20000

// ephemeralLow is the first port of the system's ephemeral range (0 when unknown).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}

// tail keeps the last tailSize bytes written to it: an emulator's last words, for the
// error that names its exit when its output goes nowhere else.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the tail as the end of an error message: empty, or a colon and the output.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := strings.TrimSpace(string(t.buf)); s != "" {
		return "; its last output:\n" + s
	}
	return ""
}
