package ai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

// The rules diagnoser's number proposals keep every digit, as text a JSON number holds:
// a value the message names for a numeric field, and an amount written for people in a
// text field read as a number. Before, both went through float64, so a long number was
// proposed (and, under an auto rule, written) rounded, 12345678901234567890 as
// 12345678901234567000, and a decimal lost the trailing zeros it was written with.
func TestRulesNumberProposalsKeepTheirDigits(t *testing.T) {
	cases := []struct {
		name, message, payload string
		want                   json.Number
	}{
		{"named, long", "Invalid value for field custentity_account_no: 4. Did you mean 12345678901234567890?",
			`{"custentity_account_no": 4}`, "12345678901234567890"},
		{"named, past 2^53", "Invalid value for field custentity_account_no: 4. Did you mean 9007199254740993?",
			`{"custentity_account_no": 4}`, "9007199254740993"},
		{"amount in text, long", "Invalid number for field amount: '12,345,678,901,234,567.89'",
			`{"amount": "12,345,678,901,234,567.89"}`, "12345678901234567.89"},
		{"amount in text, trailing zero", "Invalid number for field amount: '$1,299.50'",
			`{"amount": "$1,299.50"}`, "1299.50"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := ai.DiagnosisRequest{RecordType: "customer", RecordID: "7", ErrorCode: "INVALID_FLD_VALUE", Message: c.message,
				Payload: json.RawMessage(c.payload)}
			d, err := governedWith(ai.NewRulesProvider(), aitest.NewCostStore()).Diagnose(context.Background(), operatorID(), "se_1-a1", "se_1", req)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Fix) != 1 {
				t.Fatalf("fix %+v, want one change", d.Fix)
			}
			got := d.Fix[0].After
			if n, ok := got.(json.Number); !ok || n != c.want {
				b, _ := json.Marshal(got)
				t.Errorf("after = %#v (%T, written %s), want %s", got, got, b, c.want)
			}
		})
	}
}
