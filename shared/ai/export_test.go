package ai

import "time"

// WordingRuleNames lists the wording rules' names, for the external tests that keep them
// out of operators' rationales.
func WordingRuleNames() []string {
	out := make([]string, len(classRules))
	for i, r := range classRules {
		out[i] = r.cue
	}
	return out
}

// SetRecordTimeout shortens the records' bound for a test; the returned func restores it.
func SetRecordTimeout(d time.Duration) func() {
	old := recordTimeout
	recordTimeout = d
	return func() { recordTimeout = old }
}
