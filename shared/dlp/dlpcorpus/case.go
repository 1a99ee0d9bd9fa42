// Package dlpcorpus is the labelled corpus the dlp scanner is measured on, its fake
// credentials, and the payloads of its benchmarks. It lives outside package dlp's test
// files so that the gitleaks comparison, a module of its own (shared/dlp/gitleakscmp), can
// read the same cases without the product's go.mod carrying gitleaks.
//
// Only tests import it, so nothing here is linked into a product binary
// (TestNotLinkedIntoFunctions). It does not import dlp either, because dlp's internal
// tests import it: finding types are spelled as plain strings below, and dlp's
// TestCorpusTypesAreKnown checks them against the scanner's own.
package dlpcorpus

import "fmt"

// The finding types the corpus labels, spelled as dlp's Type constants are.
const (
	typeCardNumber         = "card_number"
	typeIBAN               = "iban"
	typeSSN                = "ssn"
	typeEmail              = "email"
	typePhone              = "phone"
	typeAWSAccessKeyID     = "aws_access_key_id"
	typeAWSSecretAccessKey = "aws_secret_access_key"
	typePrivateKey         = "private_key"
	typeJWT                = "jwt"
	typeBearerToken        = "bearer_token"
	typeAPIKey             = "api_key"
	typeURLPassword        = "url_password"
	typePasswordField      = "password_field"
)

// Expect is one labelled finding: the type, the JSON path ("$" for text) and the exact
// value the finding must cover, with its fixtures expanded.
type Expect struct{ Type, Path, Value string }

// Case is one snippet of the corpus.
type Case struct {
	Name  string
	JSON  bool     // scanned with ScanJSON; otherwise with ScanText
	Input string   // with {{NAME}} references to Fixtures
	Want  []Expect // empty: a negative case, nothing may be reported
}

// Doc is the input with its fixtures expanded, escaped for JSON when the case is JSON.
func (c Case) Doc() string {
	if c.JSON {
		return ExpandJSON(c.Input)
	}
	return Expand(c.Input)
}

// String renders a case for failure messages.
func (c Case) String() string { return fmt.Sprintf("%s: %s", c.Name, c.Doc()) }

// Covered returns what a finding at path, [start,end), covers in the case's document: the
// string or number literal at path for JSON, the text itself otherwise. It fails when the
// path does not resolve or the offsets fall outside the value.
func (c Case) Covered(path string, start, end int) (string, error) {
	v := c.Doc()
	if c.JSON {
		var err error
		if v, err = ValueAt([]byte(v), path); err != nil {
			return "", err
		}
	}
	if start < 0 || end > len(v) || start >= end {
		return "", fmt.Errorf("offsets [%d,%d) outside the %d-byte value", start, end, len(v))
	}
	return v[start:end], nil
}

func j(name, input string, want ...Expect) Case  { return Case{name, true, input, want} }
func tx(name, input string, want ...Expect) Case { return Case{name, false, input, want} }
func e(typ, path, value string) Expect           { return Expect{typ, path, Expand(value)} }
