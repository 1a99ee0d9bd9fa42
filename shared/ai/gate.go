package ai

// DefaultModelBelow is the rules' confidence under which the diagnose function asks a
// model (when one is configured): at or above it the rules' diagnosis stands and no model
// is called. From the held-out calibration (make eval-diagnoser, 2026-11-29): on the set
// written blind to the rules (diagnoser_holdout7.json) the rules were right on 74 of 74
// errors they scored 0.9 or more and on 19 of the 26 they scored less (0.73); over all
// corpora, 391 of 391 at 0.9 or more. A tenant sets its own (the tenant setting
// sync_error_assist.model_below_confidence).
const DefaultModelBelow = 0.9

// RulesDiagnosis is the rules' diagnosis of req with their confidence, as the diagnose
// function's gate reads it, but offline: no governance, for measuring the gate (make cost
// counts the errors of a mix a model would be asked about).
func RulesDiagnosis(req DiagnosisRequest) (Diagnosis, error) {
	// The rules' analysis itself, not the provider's operations: those are reached only
	// through Governed (enforce_test.go), and this offline measure sends nothing anywhere.
	a := analyze(req)
	d, err := settle(req, a.diagnosis())
	if err != nil {
		return Diagnosis{}, err
	}
	d.Confidence = a.score(d)
	return d, nil
}

// ModelPrompt is what a model reads to diagnose req: the system prompt and the user
// message (the request with its catalogue excerpt), for sizing a model's input.
func ModelPrompt(req DiagnosisRequest) (system, user string, err error) {
	user, err = suggestUserPrompt(req)
	return suggestSystemPrompt, user, err
}
