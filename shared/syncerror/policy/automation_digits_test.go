package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// "Applied by rules" shows what a rule wrote with the digits it wrote: a rule that wrote
// 12345678901234567890 and 1299.50 is not listed as having written 12345678901234567000
// and 1299.5 (the listing read its records as float64).
func TestAutomationListShowsTheDigitsARuleWrote(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"numbers","match":{"fields":["account","amount"]},"apply":"auto"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "account", Before: "x", After: json.Number("12345678901234567890")},
		{Path: "amount", Before: "$1,299.50", After: json.Number("1299.50")}}
	f.Arrive(t, "E-1", "SO-1", `{"account":"x","amount":"$1,299.50"}`)
	w := f.As(t, "olga", "operator", "GET", "/automation?mode=shadow", "")
	if w.Code != 200 {
		t.Fatalf("automation: %d %s", w.Code, w.Body)
	}
	for _, want := range []string{`"after":12345678901234567890`, `"after":1299.50`} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("the listing lacks %s: %s", want, w.Body)
		}
	}
}
