package emulators

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// An emulator that dies while starting fails its readiness wait at once, naming the exit,
// rather than after the whole (generous) deadline: a broken install says so in a second.
func TestReadyWaitEndsWhenTheEmulatorExits(t *testing.T) {
	port, err := portOrFree(0) // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	em := &emulator{name: "broken", program: "sh", port: port, probe: dynamoProbe, log: io.Discard,
		command: func(int) ([]string, []string) { return []string{"-c", "echo 'no config'; exit 3"}, nil }}
	if err := em.start(); err != nil {
		t.Fatal(err)
	}
	defer em.kill()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	start := time.Now()
	err = em.waitReady(ctx)
	if err == nil || !strings.Contains(err.Error(), "broken exited before it answered (exit status 3)") || !strings.HasSuffix(err.Error(), "its last output:\nno config") {
		t.Fatalf("waitReady = %v, want the exit named with the emulator's last output", err)
	}
	if took := time.Since(start); took > readyTimeout/2 {
		t.Fatalf("waitReady took %s: it ran out its deadline instead of seeing the exit", took)
	}
}
