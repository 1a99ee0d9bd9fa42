package ai

// WordingRuleNames lists the wording rules' names, for the external tests that keep them
// out of operators' rationales.
func WordingRuleNames() []string {
	out := make([]string, len(classRules))
	for i, r := range classRules {
		out[i] = r.cue
	}
	return out
}
