package ai

import "testing"

// The rules' patterns compile on first use; compiling them all here makes a bad pattern
// fail the tests instead of a diagnosis.
func TestEveryRulePatternCompiles(t *testing.T) {
	if len(patterns) < 40 {
		t.Fatalf("%d patterns registered; the rules have more", len(patterns))
	}
	for _, compile := range patterns {
		compile()
	}
}
