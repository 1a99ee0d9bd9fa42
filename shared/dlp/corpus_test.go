package dlp

import (
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

// The corpus itself is in dlpcorpus, where the gitleaks comparison (a module of its own)
// reads it too.

type tally struct{ tp, fp, fn int }

func (t tally) precision() float64 {
	if t.tp+t.fp == 0 {
		return 1
	}
	return float64(t.tp) / float64(t.tp+t.fp)
}

func (t tally) recall() float64 {
	if t.tp+t.fn == 0 {
		return 1
	}
	return float64(t.tp) / float64(t.tp+t.fn)
}

// scanCase runs a corpus case for dest and returns the findings with their covered values.
func scanCase(t *testing.T, s *Scanner, c dlpcorpus.Case, dest Destination) (Result, []string) {
	t.Helper()
	doc := c.Doc()
	var r Result
	var err error
	if c.JSON {
		r, err = s.ScanJSON(dest, []byte(doc))
	} else {
		r, err = s.ScanText(dest, doc)
	}
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	values := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		if values[i], err = c.Covered(f.Path, f.Start, f.End); err != nil {
			t.Fatalf("%s: finding %+v: %v", c.Name, f, err)
		}
	}
	return r, values
}

// TestCorpusTypesAreKnown checks what dlpcorpus spells as plain strings, since it cannot
// import this package: every labelled type is one the scanner reports, and the service
// token fixture has the product's prefix.
func TestCorpusTypesAreKnown(t *testing.T) {
	t.Parallel()
	for _, c := range dlpcorpus.Cases {
		for _, w := range c.Want {
			if _, ok := kindByName(w.Type); !ok {
				t.Errorf("%s: %q is not a finding type", c.Name, w.Type)
			}
		}
	}
	if tok := dlpcorpus.Fixtures["SERVICE_TOKEN"]; !strings.HasPrefix(tok, ServiceTokenPrefix) {
		t.Errorf("SERVICE_TOKEN fixture %q does not start with %q", tok, ServiceTokenPrefix)
	}
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	perType := map[string]*tally{}
	get := func(typ string) *tally {
		if perType[typ] == nil {
			perType[typ] = &tally{}
		}
		return perType[typ]
	}
	positives, negatives := 0, 0
	for _, c := range dlpcorpus.Cases {
		if len(c.Want) == 0 {
			negatives++
		}
		positives += len(c.Want)
		r, values := scanCase(t, s, c, ConnectorWrite)
		matched := make([]bool, len(c.Want))
	findings:
		for i, f := range r.Findings {
			for w, want := range c.Want {
				if !matched[w] && want.Type == f.Type && want.Path == f.Path && want.Value == values[i] {
					matched[w] = true
					get(f.Type).tp++
					continue findings
				}
			}
			get(f.Type).fp++
			t.Errorf("%s: unexpected %s at %s [%d,%d) covering %q", c.Name, f.Type, f.Path, f.Start, f.End, values[i])
		}
		for w, ok := range matched {
			if !ok {
				get(c.Want[w].Type).fn++
				t.Errorf("%s: missed %s at %s: %q", c.Name, c.Want[w].Type, c.Want[w].Path, c.Want[w].Value)
			}
		}
	}
	if positives < 80 || negatives < 80 {
		t.Errorf("corpus has %d positives and %d negative cases, want at least 80 of each", positives, negatives)
	}
	types := make([]string, 0, len(perType))
	var all tally
	for typ, tl := range perType {
		types = append(types, typ)
		all.tp += tl.tp
		all.fp += tl.fp
		all.fn += tl.fn
	}
	sort.Strings(types)
	t.Logf("corpus: %d labelled findings, %d negative cases", positives, negatives)
	t.Logf("%-22s %4s %4s %4s %9s %7s", "type", "tp", "fp", "fn", "precision", "recall")
	for _, typ := range types {
		tl := perType[typ]
		t.Logf("%-22s %4d %4d %4d %9.3f %7.3f", typ, tl.tp, tl.fp, tl.fn, tl.precision(), tl.recall())
	}
	t.Logf("%-22s %4d %4d %4d %9.3f %7.3f", "overall", all.tp, all.fp, all.fn, all.precision(), all.recall())
	if len(types) < int(numKinds) {
		t.Errorf("corpus covers %d types, want all %d", len(types), numKinds)
	}
	// The bar is what the scanner achieves on this corpus, less a small margin for
	// corpus growth; the brief's floor is 0.97 precision and 0.95 recall.
	if p := all.precision(); p < 0.99 {
		t.Errorf("overall precision %.3f < 0.99", p)
	}
	if r := all.recall(); r < 0.99 {
		t.Errorf("overall recall %.3f < 0.99", r)
	}
}

// TestSamplesNeverRevealValues checks every finding of the corpus: the sample is not the
// value, does not contain it, and shows at most four characters at either end.
func TestSamplesNeverRevealValues(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, c := range dlpcorpus.Cases {
		r, values := scanCase(t, s, c, Record)
		for i, f := range r.Findings {
			v := values[i]
			if strings.Contains(f.Sample, v) {
				t.Errorf("%s: sample %q contains the value %q", c.Name, f.Sample, v)
			}
			if n := commonPrefix(f.Sample, v); n > 4 {
				t.Errorf("%s: sample %q reveals %d leading characters of %q", c.Name, f.Sample, n, v)
			}
			if n := commonPrefix(reverse(f.Sample), reverse(v)); n > 4 {
				t.Errorf("%s: sample %q reveals %d trailing characters of %q", c.Name, f.Sample, n, v)
			}
			alnum := 0
			for _, r := range f.Sample {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					alnum++
				}
			}
			if alnum > 8 {
				t.Errorf("%s: sample %q reveals %d letters and digits", c.Name, f.Sample, alnum)
			}
		}
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
