package ai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aieval"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// TestReasoningGoesToTheTrace: the operator's rationale is plain words; how the rules
// weighed the evidence (rule names, weights, scores) is in the trace's quality step.
func TestReasoningGoesToTheTrace(t *testing.T) {
	h := aitest.NewHarness(nil)
	id := operatorID()
	d, err := h.Governed.Diagnose(context.Background(), id, "inf-1", "claim-1", ai.DiagnosisRequest{
		RecordType: "inventoryAdjustment", RecordID: "ADJ-1", ErrorCode: "MAX_RCRDS_EXCEEDED", ExternalSystem: "netsuite",
		Message: "The request exceeded the maximum allowed number of records; split the list into smaller requests.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Class != ai.ClassTooLarge {
		t.Fatalf("class %s", d.Class)
	}
	for _, s := range []string{"over one of NetSuite's limits", "Decided by the error code MAX_RCRDS_EXCEEDED", "docs.oracle.com", "What to do: Send less in one request"} {
		if !strings.Contains(d.Rationale, s) {
			t.Errorf("rationale lacks %q: %s", s, d.Rationale)
		}
	}
	for _, s := range []string{"a count limit named in words", "weight", "score", "certainty"} {
		if strings.Contains(d.Rationale, s) {
			t.Errorf("rationale has the internal %q: %s", s, d.Rationale)
		}
	}
	traces := h.Traces.Traces()
	if len(traces) != 1 || len(traces[0].Steps) != 2 {
		t.Fatalf("traces %+v", traces)
	}
	var step struct {
		Confidence float64 `json:"confidence"`
		Reasoning  struct {
			Class     ai.ErrorClass         `json:"class"`
			Scores    map[ai.ErrorClass]int `json:"scores"`
			DecidedBy []struct {
				Kind, Rule, Source string
				Weight             int
			} `json:"decidedBy"`
			Support []struct{ Rule string } `json:"support"`
		} `json:"reasoning"`
	}
	if err := json.Unmarshal(traces[0].Steps[1].Response, &step); err != nil {
		t.Fatal(err)
	}
	r := step.Reasoning
	if step.Confidence != d.Confidence || r.Class != ai.ClassTooLarge || r.Scores[ai.ClassTooLarge] < 6 ||
		len(r.DecidedBy) != 1 || r.DecidedBy[0].Rule != "code MAX_RCRDS_EXCEEDED" || r.DecidedBy[0].Weight != 6 {
		t.Errorf("reasoning %+v", step)
	}
	var rules []string
	for _, s := range r.Support {
		rules = append(rules, s.Rule)
	}
	if !strings.Contains(strings.Join(rules, ";"), "a count limit named in words") {
		t.Errorf("support lacks the wording rule: %v", rules)
	}
}

// TestRationalesKeepInternalsOut: over the corpora, no rationale quotes a wording rule's
// name as evidence (the trace does; the rationale quotes the error's own words) unless
// the error's text says the same.
func TestRationalesKeepInternalsOut(t *testing.T) {
	names := ai.WordingRuleNames()
	for _, f := range []string{"testdata/diagnoser_corpus.json", "testdata/diagnoser_holdout5.json", "testdata/diagnoser_holdout6.json", "testdata/diagnoser_tuning5.json"} {
		h := aitest.NewHarness(nil)
		for _, res := range aieval.Run(context.Background(), h.Governed, loadCorpus(t, f)) {
			text := strings.ToLower(res.Case.Request.ErrorCode + " " + res.Case.Request.Message)
			r := strings.ToLower(res.Diagnosis.Rationale)
			for _, n := range names {
				q := `"` + strings.ToLower(n) + `"`
				if (strings.Contains(r, "words "+q) || strings.Contains(r, "wording "+q)) && !strings.Contains(text, strings.ToLower(n)) {
					t.Errorf("%s: rationale names the rule %q: %s", res.Case.Name, n, res.Diagnosis.Rationale)
				}
			}
		}
	}
}
