package decisions

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// What each type takes, and what it refuses, as the JSON decoder hands values over.
func TestTypeValue(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		in   any
		want any
		ok   bool
	}{
		{syncerror.TypeString, "01067", "01067", true},
		{syncerror.TypeString, 1067.0, "1067", true},
		{syncerror.TypeString, 0.5, "0.5", true},
		{syncerror.TypeString, []any{"a"}, nil, false},
		{syncerror.TypeDecimal, " 42.5 ", json.Number("42.5"), true},
		{syncerror.TypeDecimal, "1e3", json.Number("1e3"), true},
		{syncerror.TypeDecimal, json.Number("0.1000000000000000055511151231257827"), json.Number("0.1000000000000000055511151231257827"), true},
		{syncerror.TypeDecimal, "null", nil, false},
		{syncerror.TypeDecimal, `"1"`, nil, false},
		{syncerror.TypeDecimal, "0x10", nil, false},
		{syncerror.TypeDecimal, "1,000", nil, false},
		{syncerror.TypeDecimal, "NaN", nil, false},
		{syncerror.TypeDecimal, "1e400", nil, false},
		{syncerror.TypeDecimal, true, nil, false},
		{syncerror.TypeInteger, "12", json.Number("12"), true},
		{syncerror.TypeInteger, 12.0, json.Number("12"), true},
		{syncerror.TypeInteger, 12.5, nil, false},
		// Numbers keep their digits: float64 would make 9007199254740993 ...992.
		{syncerror.TypeInteger, json.Number("9007199254740993"), json.Number("9007199254740993"), true},
		{syncerror.TypeInteger, json.Number("9007199254740993.000"), json.Number("9007199254740993"), true},
		{syncerror.TypeInteger, json.Number("1.067e3"), json.Number("1067"), true},
		{syncerror.TypeInteger, json.Number("1e999999999"), nil, false},
		{syncerror.TypeInteger, json.Number("9007199254740993.5"), nil, false},
		{syncerror.TypeString, json.Number("12345678901234567890"), "12345678901234567890", true},
		{syncerror.TypeReference, json.Number("12345678901234567890"), "12345678901234567890", true},
		{"", json.Number("9007199254740993"), json.Number("9007199254740993"), true},
		{syncerror.TypeBoolean, "false", false, true},
		{syncerror.TypeBoolean, "1", nil, false},
		{syncerror.TypeDate, "2026-11-29T09:30:00Z", "2026-11-29T09:30:00Z", true},
		{syncerror.TypeDate, "2026-02-30", nil, false},
		{syncerror.TypeReference, map[string]any{"id": "107"}, map[string]any{"id": "107"}, true},
		{syncerror.TypeReference, "", nil, false},
		{"", []any{1.0}, []any{1.0}, true},
		{syncerror.TypeInteger, nil, nil, true},
	} {
		got, why := typeValue(tc.typ, tc.in)
		if (why == "") != tc.ok || jsonvalue.Canon(got) != jsonvalue.Canon(tc.want) {
			t.Errorf("%s %#v: %#v (%q), want %#v ok=%v", tc.typ, tc.in, got, why, tc.want, tc.ok)
		}
	}
}
