package dlptest_test

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlptest"
)

// TestValuesAreReported keeps the fixtures in step with the scanner.
func TestValuesAreReported(t *testing.T) {
	t.Parallel()
	s := dlp.NewScanner()
	for _, c := range []struct {
		value, typ string
		blocks     bool
	}{
		{dlptest.CardNumber, dlp.TypeCardNumber, true},
		{dlptest.AWSAccessKeyID, dlp.TypeAWSAccessKeyID, true},
		{"aws secret " + dlptest.AWSSecretAccessKey, dlp.TypeAWSSecretAccessKey, true},
		{dlptest.GitHubToken, dlp.TypeAPIKey, true},
		{dlptest.StripeLiveKey, dlp.TypeAPIKey, true},
		{dlptest.JWT, dlp.TypeJWT, true},
		{dlptest.PrivateKey, dlp.TypePrivateKey, true},
		{dlptest.SSN, dlp.TypeSSN, true},
		{dlptest.Email, dlp.TypeEmail, false},
		{"phone " + dlptest.Phone, dlp.TypePhone, false},
		{dlptest.IBAN, dlp.TypeIBAN, false},
	} {
		r, err := s.ScanText(dlp.ConnectorWrite, c.value)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Findings) != 1 || r.Findings[0].Type != c.typ || r.Blocked != c.blocks {
			t.Errorf("%s: findings %+v, blocked %v", c.typ, r.Findings, r.Blocked)
		}
	}
}

func TestSalesOrder(t *testing.T) {
	t.Parallel()
	note, _ := json.Marshal(dlptest.PrivateKey)
	doc := dlptest.SalesOrder(`"note":` + string(note))
	r, err := dlp.NewScanner().ScanJSON(dlp.ConnectorWrite, doc)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Blocked || r.Counts()[dlp.TypePrivateKey] != 1 || r.Counts()[dlp.TypeEmail] != 1 {
		t.Errorf("blocked %v, counts %v", r.Blocked, r.Counts())
	}
	if r, _ := dlp.NewScanner().ScanJSON(dlp.ConnectorWrite, dlptest.SalesOrder()); r.Blocked {
		t.Errorf("a plain order is blocked: %s", r.Reason)
	}
}
