package policy_test

import (
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// An edit is judged as what it writes: under the default policy an operator who turns the
// country proposal into a write of a financial identifier (or of any field the proposal
// does not change) is refused with 403 approval_not_allowed and nothing is written; an
// approver may write it.
func TestDefaultPolicyRefusesAnOperatorsEditThatAddsFields(t *testing.T) {
	for _, edit := range []string{
		`{"fix":[{"path":"iban","after":"DE89370400440532013000"}]}`,
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"bankAccountNumber","after":"0532013000"}]}`,
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"taxId","after":"DE123456789"}]}`,
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"email","after":"evil@example.com"}]}`,
	} {
		f := roomtest.NewAssistFixture(t)
		c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
		w := f.As(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", edit)
		if w.Code != http.StatusForbidden || roomtest.ProblemCode(t, w) != "approval_not_allowed" {
			t.Fatalf("operator's edit %s: %d %s", edit, w.Code, w.Body)
		}
		if d := approvalOf(t, w); d.Apply != "approver" {
			t.Fatalf("rule %+v", d)
		}
		if f.Writer.Count() != 0 {
			t.Fatalf("the refused edit was written: %+v", f.Writer.Writes)
		}
		if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusOK || f.Writer.Count() != 1 {
			t.Fatalf("approver's edit %s: %d %s", edit, w.Code, w.Body)
		}
	}
}

// The operator may still correct the value of the field the proposal changes.
func TestDefaultPolicyLetsAnOperatorEditTheProposedField(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	if w := f.As(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"AT"}]}`); w.Code != http.StatusOK {
		t.Fatalf("operator: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "AT" {
		t.Fatalf("writes %+v", f.Writer.Writes)
	}
}

// maxAmount holds an operator's "99999999" as it holds 99999999: both go to approvers,
// nothing is written; an amount within the bound is the operator's.
func TestMaxAmountHoldsNumericStrings(t *testing.T) {
	for _, c := range []struct {
		after string
		code  int
	}{
		{`99999999`, http.StatusForbidden},
		{`"99999999"`, http.StatusForbidden},
		{`"99,999,999.00"`, http.StatusForbidden},
		{`999`, http.StatusOK},
		{`"999"`, http.StatusOK},
	} {
		f := roomtest.NewAssistFixture(t)
		f.PutPolicy(t, `{"version":0,"rules":[{"id":"small-amounts","match":{"maxAmount":1000},"apply":"operator"}]}`)
		row := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
		w := f.As(t, "olga", "operator", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"shipcountry","after":`+c.after+`}]}`)
		if w.Code != c.code {
			t.Fatalf("operator writing %s: %d %s", c.after, w.Code, w.Body)
		}
		want := 0
		if c.code == http.StatusOK {
			want = 1
		} else if roomtest.ProblemCode(t, w) != "approval_not_allowed" {
			t.Fatalf("operator writing %s: %s", c.after, w.Body)
		}
		if f.Writer.Count() != want {
			t.Fatalf("operator writing %s: %d writes, want %d", c.after, f.Writer.Count(), want)
		}
	}
}
