package aieval_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aieval"
)

func result(name string, want, got ai.ErrorClass, confidence float64) aieval.Result {
	return aieval.Result{
		Case:      aieval.Case{Name: name, Expect: aieval.Expect{Class: want}},
		Diagnosis: ai.Diagnosis{Class: got, Confidence: confidence},
	}
}

func TestSummarizeCountsClassesConfusionAndBands(t *testing.T) {
	results := []aieval.Result{
		result("a", ai.ClassValue, ai.ClassValue, 0.95),
		result("b", ai.ClassValue, ai.ClassMissing, 0.92),
		result("c", ai.ClassMissing, ai.ClassMissing, 0.85),
		result("d", ai.ClassConnection, ai.ClassConnection, 0.3),
		{Case: aieval.Case{Name: "e", Expect: aieval.Expect{Class: ai.ClassParse}}, Err: errors.New("model down")},
	}
	r := aieval.Summarize(results)
	if r.Cases != 5 || r.Correct != 3 || r.Failed != 1 || math.Abs(r.Accuracy()-0.6) > 1e-9 {
		t.Fatalf("totals %+v", r)
	}
	fig := map[ai.ErrorClass]aieval.ClassFigures{}
	for _, f := range r.Classes {
		fig[f.Class] = f
	}
	if v := fig[ai.ClassValue]; v.Support != 2 || v.Predicted != 1 || v.Recall() != 0.5 || v.Precision() != 1 {
		t.Errorf("value %+v", v)
	}
	if m := fig[ai.ClassMissing]; m.Precision() != 0.5 || m.Recall() != 1 {
		t.Errorf("missing %+v", m)
	}
	if low, class := r.MinRecall(); low != 0 || class != ai.ClassParse {
		t.Errorf("lowest recall %v %s, want 0 parse (its one case failed)", low, class)
	}
	if r.Confusion[[2]string{"value", "missing"}] != 1 || r.Confusion[[2]string{"parse", "(failed)"}] != 1 {
		t.Errorf("confusion %v", r.Confusion)
	}
	var top aieval.Band
	for _, b := range r.Bands {
		if b.Low == 0.9 {
			top = b
		}
	}
	if top.Cases != 2 || top.Correct != 1 || top.Accuracy() != 0.5 {
		t.Errorf("band [0.9, 1] %+v", top)
	}
	var out strings.Builder
	r.Write(&out)
	for _, want := range []string{"accuracy 0.600 (3/5); 1 diagnoses failed", "confusion (rows expected", "calibration (expected calibration error", "fail"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFixVerdicts(t *testing.T) {
	r := result("f", ai.ClassValue, ai.ClassValue, 0.9)
	r.Case.Expect.Fix = []aieval.Change{{Path: "country", After: "DE"}}
	r.Diagnosis.Fix = []ai.FieldChange{{Path: "country", Before: "Germany", After: "DE"}}
	if v := r.FixVerdict(); v != "ok" {
		t.Errorf("same change: %s", v)
	}
	r.Diagnosis.Fix[0].After = "DEU"
	if v := r.FixVerdict(); v != "wrong" {
		t.Errorf("other value: %s", v)
	}
	r.Case.Expect.Fix = []aieval.Change{}
	if v := r.FixVerdict(); v != "false" {
		t.Errorf("fix where none is expected: %s", v)
	}
	r.Case.Expect.Fix = nil
	if v := r.FixVerdict(); v != "" {
		t.Errorf("not judged: %q", v)
	}
}

func TestLoadRefusesUnknownClassesAndRepeatedNames(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`{"cases":[{"name":"a","expect":{"class":"business_rule"}}]}`:                                 "unknown class",
		`{"cases":[{"name":"a","expect":{"class":"value"}},{"name":"a","expect":{"class":"value"}}]}`: "repeats",
		`{"cases":[{"expect":{"class":"value"}}]}`:                                                    "no name",
	} {
		f := writeFile(t, dir, body)
		if _, err := aieval.Load(f); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}
