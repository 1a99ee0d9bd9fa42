package dlp

import (
	"sort"
	"strings"
	"testing"

	gitleaks "github.com/zricethezav/gitleaks/v8/detect"
)

// secretTypes are the types gitleaks also looks for; PII (cards, IBANs, SSNs, emails,
// phones) is outside its scope.
var secretTypes = map[string]bool{
	TypeAWSAccessKeyID: true, TypeAWSSecretAccessKey: true, TypePrivateKey: true, TypeJWT: true,
	TypeBearerToken: true, TypeAPIKey: true, TypeURLPassword: true, TypePasswordField: true,
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
	s := NewScanner()
	type counts struct{ want, ours, theirs int }
	perType := map[string]*counts{}
	theirFP, theirFPCases := 0, map[string]bool{}
	for _, c := range corpus {
		doc := c.doc()
		found := d.DetectString(doc)
		r, values := scanCase(t, s, c, ConnectorWrite)
		matchedTheirs := make([]bool, len(found))
		for _, w := range c.want {
			if !secretTypes[w.typ] {
				continue
			}
			ct := perType[w.typ]
			if ct == nil {
				ct = &counts{}
				perType[w.typ] = ct
			}
			ct.want++
			for i, f := range r.Findings {
				if f.Type == w.typ && values[i] == w.value {
					ct.ours++
					break
				}
			}
			for i, f := range found {
				if overlaps(f.Secret, w.value) {
					matchedTheirs[i] = true
					ct.theirs++
					break
				}
			}
		}
		for i, f := range found {
			if matchedTheirs[i] || overlapsAny(f.Secret, c.want) {
				continue
			}
			theirFP++
			theirFPCases[c.name+" ("+f.RuleID+")"] = true
		}
	}
	types := make([]string, 0, len(perType))
	for typ := range perType {
		types = append(types, typ)
	}
	sort.Strings(types)
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

func overlaps(secret, value string) bool {
	// gitleaks reads the raw document, so a PEM's newlines are still JSON escapes.
	secret = strings.ReplaceAll(secret, `\n`, "\n")
	return len(secret) >= 4 && (strings.Contains(value, secret) || strings.Contains(secret, value))
}

func overlapsAny(secret string, want []expect) bool {
	for _, w := range want {
		if overlaps(secret, w.value) {
			return true
		}
	}
	return false
}
