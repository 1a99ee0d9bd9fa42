package dlp

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

var placeholderPattern = regexp.MustCompile(`\[(REDACTED:)?[A-Z_]+(_[0-9]+)?\]`)

// FuzzScanJSON checks, for any input: no panic; the scanner accepts exactly what
// encoding/json accepts; valid JSON in gives valid JSON of the same shape out; a connector
// write is the input or nothing; an anonymized or redacted output holds none of the values
// the scan reported, and scanning it again finds nothing.
func FuzzScanJSON(f *testing.F) {
	for _, c := range dlpcorpus.Cases {
		if c.JSON {
			f.Add([]byte(c.Doc()))
		}
	}
	for _, seed := range []string{`{"a":"\u00e9\ud800x"}`, `[1,2,{"pan":4111111111111111}]`, `{"4111111111111111":1}`,
		`{"password":"[REDACTED:PASSWORD_FIELD]"}`, `"x@y.com@z.com"`, `{"a":"-----BEGIN PRIVATE KEY-----"}`, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		valid := json.Valid(doc)
		for _, dest := range []Destination{AIPrompt, Record, ConnectorWrite} {
			var reported []string
			s := &Scanner{onValue: func(v string) { reported = append(reported, v) }}
			r, err := s.ScanJSON(dest, doc)
			if (err == nil) != valid {
				t.Fatalf("%s: err = %v, json.Valid = %v", dest, err, valid)
			}
			if err != nil {
				if r.Output != nil {
					t.Fatalf("%s: output on error", dest)
				}
				continue
			}
			if len(reported) != len(r.Findings) {
				t.Fatalf("%s: %d values for %d findings", dest, len(reported), len(r.Findings))
			}
			if dest == ConnectorWrite {
				if r.Blocked && r.Output != nil || !r.Blocked && !bytes.Equal(r.Output, doc) {
					t.Fatalf("connector write changed the document: blocked %v", r.Blocked)
				}
				continue
			}
			if !json.Valid(r.Output) {
				t.Fatalf("%s: output is not JSON: %q", dest, r.Output)
			}
			if err := sameShape(doc, r.Output); err != nil {
				t.Fatalf("%s: %v", dest, err)
			}
			if again, err := s.ScanJSON(dest, r.Output); err != nil || len(again.Findings) > 0 {
				t.Fatalf("%s: rescanning the output %s finds %+v (%v)", dest, r.Output, again.Findings, err)
			}
			in, out := jsonStrings(doc), jsonStrings(r.Output)
			for _, v := range reported {
				// A value that also occurs where nothing was found (a short password that is
				// also a word elsewhere) may rightly stay there.
				if len(v) < 4 || strings.Count(in, v) > countOf(reported, v) {
					continue
				}
				if strings.Contains(out, v) {
					t.Fatalf("%s: output still holds reported value %q: %s", dest, v, r.Output)
				}
			}
		}
	})
}

func countOf(list []string, v string) int {
	n := 0
	for _, x := range list {
		if x == v {
			n++
		}
	}
	return n
}

// jsonStrings joins every key, string and number of a document, each on its own line and
// with placeholders cut out, so a value can only match within one of them.
func jsonStrings(doc []byte) string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			break
		}
		switch v := tok.(type) {
		case string:
			b.WriteString(placeholderPattern.ReplaceAllString(v, "\x00"))
		case json.Number:
			b.WriteString(v.String())
		}
		b.WriteByte('\x00')
	}
	return b.String()
}

func FuzzScanText(f *testing.F) {
	for _, c := range dlpcorpus.Cases {
		f.Add(c.Doc())
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := NewScanner()
		for _, dest := range []Destination{AIPrompt, Record, ConnectorWrite} {
			r, err := s.ScanText(dest, text)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Findings {
				if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
					t.Fatalf("offsets [%d,%d) outside %d bytes", f.Start, f.End, len(text))
				}
			}
			if dest == ConnectorWrite {
				if !r.Blocked && string(r.Output) != text {
					t.Fatalf("connector write changed the text")
				}
				continue
			}
			if again, _ := s.ScanText(dest, string(r.Output)); len(again.Findings) > 0 {
				t.Fatalf("%s: rescanning %q finds %+v", dest, r.Output, again.Findings)
			}
		}
	})
}
