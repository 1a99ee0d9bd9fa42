package dlp

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

// TestScanKeepsNoReferenceToDoc overwrites each document after its scan, as a caller that
// recycles its buffer does, and checks that nothing the scan returned or cached changed:
// ScanJSON reads the document in place without copying it.
func TestScanKeepsNoReferenceToDoc(t *testing.T) {
	t.Parallel()
	docs := []string{
		dlpcorpus.ExpandJSON(`{"email":"jane.doe@example.com","note":"call +1 (415) 555-2671","password":"hunter2!x",` +
			`"jane@example.com":"key of a map","card":4111111111111111,"nested":{"auth":"Bearer {{JWT}}","keys":["{{AWS_KEY_ID}}","{{GH_TOKEN}}"]},` +
			`"ssn":"123-45-6789","iban":"DE89 3704 0044 0532 0130 00","{{STRIPE_LIVE}}":1,"url":"https://u:s3cretPass1@h.example.com/x"}`),
		`{"clientSecret":"abc","secret":"Zx9/Yw8+Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9Z","plain":"nothing here","n":[1,2,3]}`,
		`{"msg":"esc\"aped jane\u0040example.com \ud83d\ude00","k\u00e9y":"x"}`,
	}
	for _, dest := range []Destination{AIPrompt, Record, ConnectorWrite} {
		for i, d := range docs {
			s := NewScanner()
			original := []byte(d)
			doc := bytes.Clone(original)
			res, err := s.ScanJSON(dest, doc)
			if err != nil {
				t.Fatalf("%s doc %d: %v", dest, i, err)
			}
			if len(res.Findings) == 0 {
				t.Fatalf("%s doc %d: no findings, the test needs some", dest, i)
			}
			before := fmt.Sprintf("%#v %q %v", res.Findings, res.Reason, res.Blocked)
			var output []byte
			if len(res.Output) > 0 && &res.Output[0] != &doc[0] { // Output may be the input itself
				output = bytes.Clone(res.Output)
			}
			for j := range doc {
				doc[j] = 'X'
			}
			if after := fmt.Sprintf("%#v %q %v", res.Findings, res.Reason, res.Blocked); after != before {
				t.Errorf("%s doc %d: findings changed with the document:\n%s\n%s", dest, i, before, after)
			}
			if output != nil && !bytes.Equal(output, res.Output) {
				t.Errorf("%s doc %d: output changed with the document", dest, i)
			}
			// The key cache must not hand a later scan a name read from recycled memory.
			again, err := s.ScanJSON(dest, bytes.Clone(original))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%#v %q %v", again.Findings, again.Reason, again.Blocked); got != before {
				t.Errorf("%s doc %d: a second scan of the same document differs:\n%s\n%s", dest, i, before, got)
			}
		}
	}
}

// TestKeyCacheKeepsNoReferenceToDoc recycles a document's buffer for another one whose
// secret-named key has the same length and cache slot as a clean key of the first: a cache
// entry that pointed into the buffer would now read "password" and say it is clean.
func TestKeyCacheKeepsNoReferenceToDoc(t *testing.T) {
	t.Parallel()
	clean, secret := []byte(`{"pxxxwxxd":"hunter2!xyz"}`), []byte(`{"password":"hunter2!xyz"}`)
	for _, dest := range []Destination{AIPrompt, Record, ConnectorWrite} {
		s := NewScanner()
		buf := bytes.Clone(clean)
		if res, err := s.ScanJSON(dest, buf); err != nil || len(res.Findings) != 0 {
			t.Fatalf("%s: clean document: %v %+v", dest, err, res.Findings)
		}
		copy(buf, secret)
		res, err := s.ScanJSON(dest, bytes.Clone(secret))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Type != TypePasswordField {
			t.Errorf("%s: the password field after a recycled buffer: %+v", dest, res.Findings)
		}
	}
}
