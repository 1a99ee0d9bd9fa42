package aieval

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/syncassist/syncassist/shared/ai"
)

// failed is the confusion matrix's column for a case that got no diagnosis.
const failed = "(failed)"

// ClassFigures are one class's counts: Support cases expect it, Predicted were given it,
// Correct both.
type ClassFigures struct {
	Class                       ai.ErrorClass
	Support, Predicted, Correct int
}

// Precision is Correct/Predicted (1 when the class was never predicted: no false alarm).
func (f ClassFigures) Precision() float64 { return ratio(f.Correct, f.Predicted, 1) }

// Recall is Correct/Support (1 when no case expects the class).
func (f ClassFigures) Recall() float64 { return ratio(f.Correct, f.Support, 1) }

// Band is the cases whose confidence lies in [Low, High).
type Band struct {
	Low, High      float64
	Cases, Correct int
	// SumConfidence over the band's cases, for the mean.
	SumConfidence float64
}

// Accuracy is the share of the band's cases classified right.
func (b Band) Accuracy() float64 { return ratio(b.Correct, b.Cases, 0) }

// MeanConfidence is the band's average stated confidence.
func (b Band) MeanConfidence() float64 { return b.SumConfidence / math.Max(float64(b.Cases), 1) }

// bandEdges split [0, 1]; the last band includes 1.
var bandEdges = []float64{0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001}

// Report summarises results.
type Report struct {
	Cases, Correct, Failed int
	Classes                []ClassFigures
	// Confusion counts (expected, got) pairs; got is a class or "(failed)".
	Confusion map[[2]string]int
	Bands     []Band
	// FixExpected cases name a fix, FixOK of them got exactly it; NoFixExpected cases name
	// none, FalseFix of them got one anyway.
	FixExpected, FixOK, NoFixExpected, FalseFix int
}

// Accuracy is the share of cases classified right.
func (r Report) Accuracy() float64 { return ratio(r.Correct, r.Cases, 0) }

// FixAccuracy is the share of expected fixes proposed exactly.
func (r Report) FixAccuracy() float64 { return ratio(r.FixOK, r.FixExpected, 1) }

// MinRecall is the lowest recall of a class with support, and that class.
func (r Report) MinRecall() (float64, ai.ErrorClass) {
	low, class := 1.0, ai.ErrorClass("")
	for _, f := range r.Classes {
		if f.Support > 0 && f.Recall() < low {
			low, class = f.Recall(), f.Class
		}
	}
	return low, class
}

// CalibrationError is the expected calibration error: the case-weighted mean gap between
// a band's stated confidence and its accuracy.
func (r Report) CalibrationError() float64 {
	var sum float64
	for _, b := range r.Bands {
		sum += math.Abs(b.MeanConfidence()-b.Accuracy()) * float64(b.Cases)
	}
	return sum / math.Max(float64(r.Cases), 1)
}

// Summarize counts results.
func Summarize(results []Result) Report {
	r := Report{Cases: len(results), Confusion: map[[2]string]int{}}
	fig := map[ai.ErrorClass]*ClassFigures{}
	for _, c := range ai.Classes() {
		fig[c] = &ClassFigures{Class: c}
	}
	for i := 1; i < len(bandEdges); i++ {
		r.Bands = append(r.Bands, Band{Low: bandEdges[i-1], High: bandEdges[i]})
	}
	for _, res := range results {
		want := res.Case.Expect.Class
		fig[want].Support++
		got := failed
		if res.Err != nil {
			r.Failed++
		} else {
			got = string(res.Diagnosis.Class)
			if f, ok := fig[res.Diagnosis.Class]; ok {
				f.Predicted++
			}
			r.band(res.Diagnosis.Confidence, res.ClassOK())
		}
		if res.ClassOK() {
			r.Correct++
			fig[want].Correct++
		}
		r.Confusion[[2]string{string(want), got}]++
		switch res.FixVerdict() {
		case "ok":
			if len(res.Case.Expect.Fix) > 0 {
				r.FixExpected++
				r.FixOK++
			} else {
				r.NoFixExpected++
			}
		case "wrong":
			r.FixExpected++
		case "false":
			r.NoFixExpected++
			r.FalseFix++
		}
	}
	for _, c := range ai.Classes() {
		r.Classes = append(r.Classes, *fig[c])
	}
	return r
}

func (r *Report) band(confidence float64, ok bool) {
	for i := range r.Bands {
		b := &r.Bands[i]
		if confidence >= b.Low && confidence < b.High {
			b.Cases++
			b.SumConfidence += confidence
			if ok {
				b.Correct++
			}
			return
		}
	}
}

func ratio(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}

// Write prints the report: totals, per-class precision and recall, the confusion matrix
// (rows expected, columns diagnosed) and the calibration bands.
func (r Report) Write(w io.Writer) {
	low, lowClass := r.MinRecall()
	fmt.Fprintf(w, "accuracy %.3f (%d/%d)", r.Accuracy(), r.Correct, r.Cases)
	if r.Failed > 0 {
		fmt.Fprintf(w, "; %d diagnoses failed", r.Failed)
	}
	fmt.Fprintf(w, "; lowest recall %.2f (%s)\n", low, lowClass)
	if r.FixExpected+r.NoFixExpected > 0 {
		fmt.Fprintf(w, "fixes %.3f (%d/%d); false fixes %d of %d no-fix cases\n",
			r.FixAccuracy(), r.FixOK, r.FixExpected, r.FalseFix, r.NoFixExpected)
	}
	fmt.Fprintf(w, "\n%-13s %7s %9s %9s %6s\n", "class", "support", "precision", "recall", "f1")
	for _, f := range r.Classes {
		if f.Support == 0 && f.Predicted == 0 {
			continue
		}
		p, rc := f.Precision(), f.Recall()
		fmt.Fprintf(w, "%-13s %7d %9.2f %9.2f %6.2f\n", f.Class, f.Support, p, rc, 2*p*rc/math.Max(p+rc, 1e-9))
	}
	r.writeMatrix(w)
	fmt.Fprintf(w, "\ncalibration (expected calibration error %.3f)\n%-11s %6s %10s %9s\n", r.CalibrationError(), "confidence", "cases", "mean conf", "accuracy")
	for _, b := range r.Bands {
		if b.Cases == 0 {
			continue
		}
		fmt.Fprintf(w, "[%.1f, %.1f%s %6d %10.2f %9.2f\n", b.Low, math.Min(b.High, 1), map[bool]string{true: "]", false: ")"}[b.High > 1], b.Cases, b.MeanConfidence(), b.Accuracy())
	}
}

// abbrev heads the matrix's columns.
var abbrev = map[string]string{
	"value": "val", "missing": "mis", "reference": "ref", "duplicate": "dup", "permission": "perm",
	"connection": "conn", "intermittent": "int", "rate_limit": "rate", "too_large": "big", "parse": "prs",
	"business_rule": "biz", failed: "fail",
}

func (r Report) writeMatrix(w io.Writer) {
	var cols []string
	for _, c := range ai.Classes() {
		cols = append(cols, string(c))
	}
	if r.Failed > 0 {
		cols = append(cols, failed)
	}
	var rows []string
	for _, f := range r.Classes {
		if f.Support > 0 {
			rows = append(rows, string(f.Class))
		}
	}
	fmt.Fprintf(w, "\nconfusion (rows expected, columns diagnosed)\n%-13s", "")
	for _, c := range cols {
		fmt.Fprintf(w, " %4s", abbrev[c])
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		fmt.Fprintf(w, "%-13s", row)
		for _, c := range cols {
			n := r.Confusion[[2]string{row, c}]
			cell := "."
			if n > 0 {
				cell = fmt.Sprint(n)
			}
			fmt.Fprintf(w, " %4s", cell)
		}
		fmt.Fprintln(w)
	}
}

// WriteCases prints one line per case: the verdict, class, confidence and, when wrong, what
// was expected and the rationale's first sentence.
func WriteCases(w io.Writer, results []Result) {
	for _, res := range results {
		if res.Err != nil {
			fmt.Fprintf(w, "FAIL %-40s want %s: %v\n", res.Case.Name, res.Case.Expect.Class, res.Err)
			continue
		}
		d := res.Diagnosis
		verdict := "ok  "
		if !res.ClassOK() {
			verdict = "MISS"
		}
		line := fmt.Sprintf("%s %-40s %-12s %.2f", verdict, res.Case.Name, d.Class, d.Confidence)
		if !res.ClassOK() {
			line += fmt.Sprintf("  want %s: %s", res.Case.Expect.Class, firstSentence(d.Rationale))
		}
		if v := res.FixVerdict(); v == "wrong" || v == "false" {
			line += fmt.Sprintf("  fix %s: %v", v, d.Fix)
		}
		fmt.Fprintln(w, line)
	}
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
