package ai_test

import (
	"context"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai/aieval"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

func loadCorpus(t testing.TB, file string) []aieval.Case {
	t.Helper()
	c, err := aieval.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return c.Cases
}

// runCorpus diagnoses every case of file through Governed with the rules provider, the
// way the worker does, and logs the per-case lines and the report (go test -v shows them;
// make eval-diagnoser prints the same report through DLP). Mismatches are logged, not
// failed: the callers judge the totals.
func runCorpus(t *testing.T, file string) aieval.Report {
	cases := loadCorpus(t, file)
	h := aitest.NewHarness(nil)
	results := aieval.Run(context.Background(), h.Governed, cases)
	var b strings.Builder
	aieval.WriteCases(&b, results)
	r := aieval.Summarize(results)
	r.Write(&b)
	t.Logf("%s\n%s", file, b.String())
	for _, res := range results {
		d := res.Diagnosis
		switch {
		case res.Err != nil:
			t.Errorf("%s: Diagnose: %v", res.Case.Name, res.Err)
		case d.Retryable != d.Class.Retryable():
			t.Errorf("%s: retryable %v for class %s", res.Case.Name, d.Retryable, d.Class)
		case d.Confidence <= 0 || d.Confidence > 1:
			t.Errorf("%s: confidence %v outside (0, 1]", res.Case.Name, d.Confidence)
		case !strings.Contains(d.Rationale, "Decided by ") && !strings.Contains(d.Rationale, "lowest confidence"):
			t.Errorf("%s: the rationale names no deciding evidence: %s", res.Case.Name, d.Rationale)
		case !strings.Contains(d.Rationale, "What to do: "):
			t.Errorf("%s: the rationale says nothing to do: %s", res.Case.Name, d.Rationale)
		}
	}
	if n := len(h.Traces.Traces()); n != len(cases) {
		t.Errorf("%d traces for %d diagnoses", n, len(cases))
	}
	return r
}

// corpusFloor is what a corpus must keep reaching, so that a change that makes the
// diagnoser worse fails.
type corpusFloor struct {
	file      string
	class     float64 // classification accuracy
	minRecall float64 // of every class the corpus has cases of
	fix       float64
	falseFix  int
}

// TestRuleDiagnoserCorpora holds the rules to what they reach on each corpus. Only
// held-out set 5 was never tuned against (each file's "use" says how it served): its figure is the honest estimate for unseen
// errors (see the README's figures). The others were written together with the rules or
// tuned on after their first run (their first-run figures are in the README):
//   - diagnoser_corpus: written with the rules, in-sample;
//   - holdout, holdout2, holdout3, holdout4: held out once, since tuned on;
//   - tuning5: written from the vendor references for tuning the catalogue rules;
//   - holdout6: written independently, held out once (0.925), tuned on since (diag27);
//   - holdout7: written independently and never tuned on (0.920, then 0.930 after diag27):
//     its floor is the bar, not its figure, so it guards without inviting tuning.
//
// holdout3 labels linking a duplicate to the existing record as no fix, where the rules
// (and the main corpus) propose that link: its two "false fixes" are that disagreement.
func TestRuleDiagnoserCorpora(t *testing.T) {
	for _, f := range []corpusFloor{
		{"testdata/diagnoser_corpus.json", 0.95, 0.8, 0.9, 0},
		{"testdata/diagnoser_holdout.json", 0.95, 0.8, 0.8, 0},
		{"testdata/diagnoser_holdout2.json", 0.95, 0.8, 0.8, 0},
		{"testdata/diagnoser_holdout3.json", 0.95, 0.8, 0.8, 2},
		{"testdata/diagnoser_holdout4.json", 0.95, 0.8, 0.8, 0},
		{"testdata/diagnoser_tuning5.json", 0.95, 0.8, 1, 0},
		{"testdata/diagnoser_holdout5.json", 0.95, 0.8, 1, 0},
		{"testdata/diagnoser_holdout6.json", 0.95, 0.8, 1, 0},
		{"testdata/diagnoser_holdout7.json", 0.90, 0.8, 0.75, 0},
	} {
		r := runCorpus(t, f.file)
		if a := r.Accuracy(); a < f.class {
			t.Errorf("%s: classification accuracy %.3f < %.2f", f.file, a, f.class)
		}
		if low, class := r.MinRecall(); low < f.minRecall {
			t.Errorf("%s: recall of %s %.2f < %.2f", f.file, class, low, f.minRecall)
		}
		if a := r.FixAccuracy(); a < f.fix {
			t.Errorf("%s: fix accuracy %.3f < %.2f", f.file, a, f.fix)
		}
		if r.FalseFix > f.falseFix {
			t.Errorf("%s: %d false fixes, at most %d", f.file, r.FalseFix, f.falseFix)
		}
	}
}
