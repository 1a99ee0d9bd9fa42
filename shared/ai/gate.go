package ai

// DefaultModelBelow is the rules' confidence under which the diagnose function asks a
// model (when one is configured): at or above it the rules' diagnosis stands and no model
// is called. From the held-out calibration (make eval-diagnoser, 2026-11-29): on the set
// written blind to the rules (diagnoser_holdout7.json) the rules were right on 74 of 74
// errors they scored 0.9 or more and on 19 of the 26 they scored less (0.73); over all
// corpora, 391 of 391 at 0.9 or more. A tenant sets its own (the tenant setting
// sync_error_assist.model_below_confidence).
const DefaultModelBelow = 0.9
