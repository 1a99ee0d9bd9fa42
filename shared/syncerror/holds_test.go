package syncerror_test

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A lost answer is settled by reading the record back; a record that still holds the value
// before the write must not "hold" a fix one unit above it beyond float64's 53 bits, or a
// write that did not land is marked approved.
func TestRecordHoldsComparesNumbersExactly(t *testing.T) {
	cases := []struct {
		name   string
		record map[string]any
		fix    []syncerror.FieldChange
		want   bool
	}{
		{"one above 2^53, as read", map[string]any{"externalRef": json.Number("9007199254740992")},
			[]syncerror.FieldChange{{Path: "externalRef", After: json.Number("9007199254740993")}}, false},
		{"one above 2^53, record read as float64", map[string]any{"externalRef": float64(9007199254740992)},
			[]syncerror.FieldChange{{Path: "externalRef", After: json.Number("9007199254740993")}}, false},
		{"the same digits", map[string]any{"externalRef": json.Number("9007199254740993")},
			[]syncerror.FieldChange{{Path: "externalRef", After: json.Number("9007199254740993")}}, true},
		{"by value: 1500.00 holds 1500", map[string]any{"amount": json.Number("1500.00")},
			[]syncerror.FieldChange{{Path: "amount", After: float64(1500)}}, true},
		{"text is not a number", map[string]any{"shipzip": json.Number("1067")},
			[]syncerror.FieldChange{{Path: "shipzip", After: "01067"}}, false},
		{"nested", map[string]any{"merge_fields": map[string]any{"FNAME": "Ada", "LNAME": "L"}},
			[]syncerror.FieldChange{{Path: "merge_fields.FNAME", After: "Ada"}}, true},
		{"a cleared field is absent", map[string]any{},
			[]syncerror.FieldChange{{Path: "memo", After: nil}}, true},
		{"an empty fix proves nothing", map[string]any{"a": 1.0}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := syncerror.RecordHolds(c.record, c.fix); got != c.want {
				t.Fatalf("RecordHolds(%v, %v) = %v, want %v", c.record, c.fix, got, c.want)
			}
		})
	}
}

// The revert's changed_since check compares the same way: a record moved one unit above
// the fix beyond 2^53 has changed.
func TestSameHeldIsExact(t *testing.T) {
	if syncerror.SameHeld(json.Number("12345678901234567890"), json.Number("12345678901234567891")) {
		t.Fatal("two integers one apart are the same value")
	}
	if !syncerror.SameHeld(json.Number("12345678901234567890"), json.Number("1.2345678901234567890e19")) {
		t.Fatal("one integer in two notations is not the same value")
	}
}
