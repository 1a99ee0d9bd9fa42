package fault

import (
	"context"
	"os"
	"testing"
)

// The rate-budget scenario alone, for a quick run while working on the budget: the
// short suite runs it with the others.
func TestRateBudgetScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the emulators; -short skips it")
	}
	h, err := StartHarness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cfg := Short()
	if os.Getenv("FAULT_FULL") != "" {
		cfg = Full() // the budget in dynalite
	}
	row := runRateBudget(context.Background(), h, cfg)
	t.Logf("%s: ops %d, lost %d, doubled %d, retried %d; %s", "rate-budget", row.Ops, row.Lost, row.Doubled, row.Retried, row.Note)
	if !row.Pass() {
		t.Fatalf("lost %d, doubled %d, error %v", row.Lost, row.Doubled, row.Err)
	}
}
