package syncerror

import "testing"

// What each type takes, and what it refuses, as the JSON decoder hands values over.
func TestTypeValue(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		in   any
		want any
		ok   bool
	}{
		{TypeString, "01067", "01067", true},
		{TypeString, 1067.0, "1067", true},
		{TypeString, 0.5, "0.5", true},
		{TypeString, []any{"a"}, nil, false},
		{TypeDecimal, " 42.5 ", 42.5, true},
		{TypeDecimal, "1e3", 1000.0, true},
		{TypeDecimal, "null", nil, false},
		{TypeDecimal, `"1"`, nil, false},
		{TypeDecimal, "0x10", nil, false},
		{TypeDecimal, "1,000", nil, false},
		{TypeDecimal, "NaN", nil, false},
		{TypeDecimal, "1e400", nil, false},
		{TypeDecimal, true, nil, false},
		{TypeInteger, "12", 12.0, true},
		{TypeInteger, 12.5, nil, false},
		{TypeBoolean, "false", false, true},
		{TypeBoolean, "1", nil, false},
		{TypeDate, "2026-11-29T09:30:00Z", "2026-11-29T09:30:00Z", true},
		{TypeDate, "2026-02-30", nil, false},
		{TypeReference, map[string]any{"id": "107"}, map[string]any{"id": "107"}, true},
		{TypeReference, "", nil, false},
		{"", []any{1.0}, []any{1.0}, true},
		{TypeInteger, nil, nil, true},
	} {
		got, why := typeValue(tc.typ, tc.in)
		if (why == "") != tc.ok || canon(got) != canon(tc.want) {
			t.Errorf("%s %#v: %#v (%q), want %#v ok=%v", tc.typ, tc.in, got, why, tc.want, tc.ok)
		}
	}
}
