package emulators

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	// proc(5)'s layout, with a command name holding the characters that end the field.
	line := "4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 11 0 12345 0 0\n"
	got, err := statCPU(line)
	if want := 3250 * time.Millisecond; err != nil || got != want {
		t.Fatalf("statCPU = %v, %v; want %v (utime 250 + stime 75 ticks at %d Hz)", got, err, want, userHZ)
	}
	for _, bad := range []string{"", "4242 (node S 1", "4242 (node) S 1 2 3", "4242 (node) S 1 2 3 4 5 6 7 8 9 10 x 75 0"} {
		if d, err := statCPU(bad); err == nil {
			t.Errorf("statCPU(%q) = %v, want an error", bad, d)
		}
	}
}

// A busy child's CPU time grows while it runs, and a sleeping one's does not.
func TestProcessCPUOfAChild(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	idle := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{busy, idle} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, err := processCPU(busy.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if d >= 100*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a busy loop used %v of CPU in 20 s by /proc/%d/stat", d, busy.Process.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d, err := processCPU(idle.Process.Pid); err != nil || d > 50*time.Millisecond {
		t.Fatalf("sleep used %v, %v of CPU: want next to none", d, err)
	}
	if _, err := processCPU(1 << 30); !os.IsNotExist(err) {
		t.Fatalf("a process that is not there: %v, want a not-exist error", err)
	}
}
