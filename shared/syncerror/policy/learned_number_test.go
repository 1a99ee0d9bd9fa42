package policy_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// A value a person approved is learned with its digits: the next error's learned proposal
// writes 12345678901234567890, not the float64 ...567000 the knowledge read back as.
func TestLearnedNumberKeepsItsDigits(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	first := f.Arrive(t, "E-1", "SO-1", `{"accountnumber":"n/a"}`)
	edit := `{"fix":[{"path":"accountnumber","after":12345678901234567890}]}`
	if w := f.As(t, "anna", "approver", "POST", "/p/"+first.ID+"/approve", edit); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	second := f.Arrive(t, "E-2", "SO-2", `{"accountnumber":"n/a"}`)
	p := second.Proposal
	if p.Source != "learned" || len(p.Fix) != 1 {
		t.Fatalf("learned proposal %+v", p)
	}
	if b, _ := json.Marshal(p.Fix[0].After); string(b) != "12345678901234567890" {
		t.Fatalf("learned value %s, approved 12345678901234567890", b)
	}
}
