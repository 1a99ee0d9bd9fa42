package gitleakscmp

import (
	"sort"
	"strings"
	"testing"

	gitleaks "github.com/zricethezav/gitleaks/v8/detect"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

// secretTypes are the types gitleaks also looks for; PII (cards, IBANs, SSNs, emails,
// phones) is outside its scope.
var secretTypes = map[string]bool{
	dlp.TypeAWSAccessKeyID: true, dlp.TypeAWSSecretAccessKey: true, dlp.TypePrivateKey: true, dlp.TypeJWT: true,
	dlp.TypeBearerToken: true, dlp.TypeAPIKey: true, dlp.TypeURLPassword: true, dlp.TypePasswordField: true,
}

// TestGitleaksOnCorpus runs gitleaks v8.30.1 over the same corpus, to decide per secret type
// whether its rules would catch something the hand-written ones miss. They would replace
// the hand-written rules for a type only if they found more of it; they do not (the test
// fails if that changes), and they cost 12–20 ms and 26 MB per process to build.
func TestGitleaksOnCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a gitleaks detector")
	}
	t.Parallel()
	d, err := gitleaks.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := dlp.NewScanner()
	type counts struct{ want, ours, theirs int }
	perType := map[string]*counts{}
	theirFP, theirFPCases := 0, map[string]bool{}
	for _, c := range dlpcorpus.Cases {
		doc := c.Doc()
		found := d.DetectString(doc)
		r, values := scanCase(t, s, c)
		matchedTheirs := make([]bool, len(found))
		for _, w := range c.Want {
			if !secretTypes[w.Type] {
				continue
			}
			ct := perType[w.Type]
			if ct == nil {
				ct = &counts{}
				perType[w.Type] = ct
			}
			ct.want++
			for i, f := range r.Findings {
				if f.Type == w.Type && values[i] == w.Value {
					ct.ours++
					break
				}
			}
			for i, f := range found {
				if overlaps(f.Secret, w.Value) {
					matchedTheirs[i] = true
					ct.theirs++
					break
				}
			}
		}
		for i, f := range found {
			if matchedTheirs[i] || overlapsAny(f.Secret, c.Want) {
				continue
			}
			theirFP++
			theirFPCases[c.Name+" ("+f.RuleID+")"] = true
		}
	}
	types := make([]string, 0, len(perType))
	for typ := range perType {
		types = append(types, typ)
	}
	sort.Strings(types)
	if len(types) != len(secretTypes) {
		t.Errorf("the corpus labels %d of the %d secret types gitleaks is compared on", len(types), len(secretTypes))
	}
	t.Logf("%-22s %5s %12s %12s", "type", "want", "dlp recall", "gitleaks")
	for _, typ := range types {
		ct := perType[typ]
		t.Logf("%-22s %5d %12.3f %12.3f", typ, ct.want, float64(ct.ours)/float64(ct.want), float64(ct.theirs)/float64(ct.want))
		if ct.theirs > ct.ours {
			t.Errorf("gitleaks finds more %s (%d) than the hand-written rules (%d)", typ, ct.theirs, ct.ours)
		}
	}
	fps := make([]string, 0, len(theirFPCases))
	for name := range theirFPCases {
		fps = append(fps, name)
	}
	sort.Strings(fps)
	t.Logf("gitleaks false positives: %d, in %s", theirFP, strings.Join(fps, "; "))
}

// scanCase runs a corpus case as a connector write, the destination that blocks secrets,
// and returns the findings with the values they cover. shared/dlp's tests have their own
// copy: this module sees only dlp's exported API.
func scanCase(t *testing.T, s *dlp.Scanner, c dlpcorpus.Case) (dlp.Result, []string) {
	t.Helper()
	var r dlp.Result
	var err error
	if c.JSON {
		r, err = s.ScanJSON(dlp.ConnectorWrite, []byte(c.Doc()))
	} else {
		r, err = s.ScanText(dlp.ConnectorWrite, c.Doc())
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

func overlaps(secret, value string) bool {
	// gitleaks reads the raw document, so a PEM's newlines are still JSON escapes.
	secret = strings.ReplaceAll(secret, `\n`, "\n")
	return len(secret) >= 4 && (strings.Contains(value, secret) || strings.Contains(secret, value))
}

func overlapsAny(secret string, want []dlpcorpus.Expect) bool {
	for _, w := range want {
		if overlaps(secret, w.Value) {
			return true
		}
	}
	return false
}
