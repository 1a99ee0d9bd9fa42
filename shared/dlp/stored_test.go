package dlp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlptest"
)

// Stored keeps no credential and no full card number or national id, and keeps contact
// data (a fix may need it); Display masks what Stored kept.
func TestStoredAndDisplayPolicies(t *testing.T) {
	t.Parallel()
	s := dlp.NewScanner()
	msg := "card " + dlptest.CardNumber + ", ssn " + dlptest.SSN + ", mail " + dlptest.Email +
		", key " + dlptest.AWSAccessKeyID + " " + dlptest.AWSSecretAccessKey + ", token " + dlptest.JWT
	stored, err := s.ScanText(dlp.Stored, msg)
	if err != nil {
		t.Fatal(err)
	}
	out := string(stored.Output)
	for _, gone := range []string{dlptest.CardNumber, "4111111111111111", dlptest.SSN, dlptest.AWSAccessKeyID, dlptest.AWSSecretAccessKey, dlptest.JWT} {
		if strings.Contains(out, gone) {
			t.Errorf("stored text keeps %q: %s", gone, out)
		}
	}
	for _, kept := range []string{"411111******1111", "*****6789", dlptest.Email, "[REDACTED:AWS_SECRET_ACCESS_KEY]", "[REDACTED:JWT]"} {
		if !strings.Contains(out, kept) {
			t.Errorf("stored text lacks %q: %s", kept, out)
		}
	}
	// Storing what was stored changes nothing: a masked card or id is no longer one.
	again, _ := s.ScanText(dlp.Stored, out)
	if string(again.Output) != out {
		t.Errorf("a second Stored scan changed the text:\n%s\n%s", out, again.Output)
	}
	shown, _ := s.ScanText(dlp.Display, out)
	if strings.Contains(string(shown.Output), dlptest.Email) || !strings.Contains(string(shown.Output), "j***@e***.com") {
		t.Errorf("display keeps the e-mail: %s", shown.Output)
	}

	pem, _ := json.Marshal(dlptest.PrivateKey)
	doc := dlptest.SalesOrder(`"cardNumber":"`+dlptest.CardNumber+`"`, `"password":"hunter2!xyz"`, `"key":`+string(pem))
	res, err := s.ScanJSON(dlp.Stored, doc)
	if err != nil || !json.Valid(res.Output) {
		t.Fatalf("stored JSON %s err %v", res.Output, err)
	}
	for _, gone := range []string{"4111 1111", "hunter2", "BEGIN RSA"} {
		if strings.Contains(string(res.Output), gone) {
			t.Errorf("stored JSON keeps %q: %s", gone, res.Output)
		}
	}
	if !strings.Contains(string(res.Output), dlptest.Email) || !strings.Contains(string(res.Output), dlptest.Phone) {
		t.Errorf("stored JSON dropped contact data a fix may need: %s", res.Output)
	}
}

// RedactString answers what ScanText's output says, and the very string when clean.
func TestRedactStringMatchesScanText(t *testing.T) {
	t.Parallel()
	s := dlp.NewScanner()
	for _, in := range []string{"hosterp/salesOrder/SO-1", "crm/contact/" + dlptest.Email, "key " + dlptest.AWSSecretAccessKey, ""} {
		for _, dest := range []dlp.Destination{dlp.Record, dlp.Display, dlp.Stored, dlp.AIPrompt} {
			got, err := s.RedactString(dest, in)
			res, _ := s.ScanText(dest, in)
			if err != nil || got != string(res.Output) {
				t.Errorf("%s %q: %q, ScanText %q (%v)", dest, in, got, res.Output, err)
			}
		}
	}
}
