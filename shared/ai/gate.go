package ai

import "context"

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
	p := &rulesProvider{}
	d, _, err := p.suggest(context.Background(), nil, req)
	if err == nil {
		d, err = settle(req, d)
	}
	if err != nil {
		return Diagnosis{}, err
	}
	d.Confidence, _, err = p.assessQuality(context.Background(), nil, req, d)
	return d, err
}

// ModelPrompt is what a model reads to diagnose req: the system prompt and the user
// message (the request with its catalogue excerpt), for sizing a model's input.
func ModelPrompt(req DiagnosisRequest) (system, user string, err error) {
	user, err = suggestUserPrompt(req)
	return suggestSystemPrompt, user, err
}
