// Package aieval measures a diagnoser against labelled corpora of sync errors: accuracy, a
// confusion matrix, precision and recall per class, calibration (accuracy within confidence
// bands) and fix accuracy. Every diagnosis goes through ai.Governed, as the worker's does, so
// a model server sees only what DLP let through and the figures include the quality
// assessment that gives the confidence.
//
// A corpus is a JSON file {"description": ..., "cases": [...]}, each case a DiagnosisRequest
// and the expected class (and optionally the expected fix). shared/ai/testdata holds the
// project's; a tenant can write one from its own errors and compare a model with the rules
// before switching provider (make eval-diagnoser).
package aieval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/identity"
)

// Case is one labelled sync error.
type Case struct {
	Name   string `json:"name"`
	System string `json:"system"`
	// Source is the vendor reference a case was written from.
	Source  string              `json:"source,omitempty"`
	Request ai.DiagnosisRequest `json:"request"`
	Expect  Expect              `json:"expect"`
}

// Expect is what a correct diagnosis holds.
type Expect struct {
	Class ai.ErrorClass `json:"class"`
	// Fix nil: not judged; empty: no fix can be determined, so none may be proposed.
	Fix []Change `json:"fix"`
}

// Change is an expected field change; Before is not judged (Governed sets it from the
// payload).
type Change struct {
	Path  string `json:"path"`
	After any    `json:"after"`
}

// Corpus is one file of cases.
type Corpus struct {
	File string `json:"-"`
	// Use says how the corpus has served the rules: in-sample, tuning, tuned on after a
	// first run, or held out. Only a held-out corpus estimates accuracy on unseen errors;
	// the evaluation prints it beside every figure so no one mistakes the one for the other.
	Use         string `json:"use"`
	Description string `json:"description"`
	Cases       []Case `json:"cases"`
}

// Load reads a corpus file, refusing a case without a name or with an unknown class.
func Load(file string) (Corpus, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return Corpus{}, err
	}
	c := Corpus{File: file}
	if err := json.Unmarshal(raw, &c); err != nil {
		return Corpus{}, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]bool{}
	for i, k := range c.Cases {
		switch {
		case k.Name == "":
			return Corpus{}, fmt.Errorf("%s: case %d has no name", file, i)
		case seen[k.Name]:
			return Corpus{}, fmt.Errorf("%s: case name %q repeats", file, k.Name)
		case !k.Expect.Class.Valid():
			return Corpus{}, fmt.Errorf("%s: case %s expects unknown class %q", file, k.Name, k.Expect.Class)
		}
		seen[k.Name] = true
	}
	return c, nil
}

// Result is one case's outcome. Err is set when Governed refused or the provider failed:
// the case counts as wrong.
type Result struct {
	Case      Case
	Diagnosis ai.Diagnosis
	Err       error
}

// ClassOK reports whether the diagnosis has the expected class.
func (r Result) ClassOK() bool { return r.Err == nil && r.Diagnosis.Class == r.Case.Expect.Class }

// FixVerdict is how the diagnosis's fix compares with the expected one: "" when not
// judged, "ok", "wrong" (a fix was expected and differs) or "false" (none was expected).
func (r Result) FixVerdict() string {
	want := r.Case.Expect.Fix
	if want == nil {
		return ""
	}
	got := r.Diagnosis.Fix
	if len(want) == 0 {
		if len(got) > 0 {
			return "false"
		}
		return "ok"
	}
	if reflect.DeepEqual(changes(got, func(c ai.FieldChange) (string, any) { return c.Path, c.After }),
		changes(want, func(c Change) (string, any) { return c.Path, c.After })) {
		return "ok"
	}
	return "wrong"
}

type pathValue struct{ Path, Value string }

func changes[T any](in []T, pv func(T) (string, any)) []pathValue {
	out := make([]pathValue, len(in))
	for i, c := range in {
		p, v := pv(c)
		out[i] = pathValue{p, canonical(v)}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// canonical renders a value as encoding/json reads it without UseNumber, so 1299 and
// json.Number("1299") compare equal.
func canonical(v any) string {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	raw, _ = json.Marshal(out)
	return string(raw)
}

// Run diagnoses every case through g for one evaluation tenant, in order. Each case gets
// its own inference id, so traces and costs stay apart.
func Run(ctx context.Context, g *ai.Governed, cases []Case) []Result {
	id := identity.ForTenant("eval", "eval:diagnoser")
	out := make([]Result, len(cases))
	for i, c := range cases {
		d, err := g.Diagnose(ctx, id, fmt.Sprintf("eval-%d-%s", i, c.Name), "eval-"+c.Name, c.Request)
		out[i] = Result{Case: c, Diagnosis: d, Err: err}
	}
	return out
}
