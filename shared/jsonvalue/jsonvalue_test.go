package jsonvalue_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// Numbers compare by value whatever their text, float64 or json.Number; and two numbers
// past float64's digits that differ in one are two values.
func TestCanonComparesNumbersByValue(t *testing.T) {
	same := [][2]any{
		{json.Number("10.50"), 10.5},
		{json.Number("1e2"), 100.0},
		{json.Number("0.1"), 0.1},
		// float64 reads 12345678901234567890 as ...567168 and writes ...567000: a value
		// learned before keeps its key.
		{json.Number("12345678901234567000"), 12345678901234567890.0},
		{map[string]any{"n": json.Number("2.0")}, map[string]any{"n": 2.0}},
		{[]any{json.Number("123456789012345.67890")}, []any{json.Number("123456789012345.6789")}},
	}
	for _, c := range same {
		if !jsonvalue.Same(c[0], c[1]) {
			t.Errorf("%v and %v: %s ≠ %s", c[0], c[1], jsonvalue.Canon(c[0]), jsonvalue.Canon(c[1]))
		}
	}
	differ := [][2]any{
		{json.Number("12345678901234567890"), json.Number("12345678901234567000")},
		{json.Number("123456789012345.6789"), 123456789012345.67},
		{json.Number("1"), "1"},
	}
	for _, c := range differ {
		if jsonvalue.Same(c[0], c[1]) {
			t.Errorf("%v and %v compare the same (%s)", c[0], c[1], jsonvalue.Canon(c[0]))
		}
	}
	if got := jsonvalue.Canon(json.Number("12345678901234567890")); got != "12345678901234567890" {
		t.Errorf("Canon kept %s", got)
	}
	// Out of float64's range: the text as it is (no digit of 10^999999 built; its time is
	// BenchmarkCanonLongNumber's).
	if got := jsonvalue.Canon(json.Number("1e999999")); got != "1e999999" {
		t.Errorf("Canon(1e999999) = %s", got)
	}
}

// A number of many digits (a payload holds up to 256 KiB, and learning compares each of
// its fields with every case's value) is canonical at once: finding its fraction digits
// by powers of ten took 0.5 s at 60,000 digits and grew with their square.
func TestCanonOfALongNumber(t *testing.T) {
	long := "1." + strings.Repeat("3", 200_000)
	if got := jsonvalue.Canon(json.Number(long)); got != long {
		t.Errorf("Canon kept %.40s… (%d characters)", got, len(got))
	}
	for n, want := range map[string]string{"123456789012345.67890": "123456789012345.6789", "1234567890123456789e-2": "12345678901234567.89",
		"-0.000000000000000000012345678901234567890e1": "-0.0000000000000000001234567890123456789", "1.5e0": "1.5"} {
		if got := jsonvalue.Canon(json.Number(n)); got != want {
			t.Errorf("Canon(%s) = %s, want %s", n, got, want)
		}
	}
}

// BenchmarkCanonLongNumber times Canon of numbers a payload may carry (it runs on every
// payload field a learned case names): 200,000 digits, and an exponent out of range.
func BenchmarkCanonLongNumber(b *testing.B) {
	long := json.Number("1." + strings.Repeat("3", 200_000))
	for b.Loop() {
		jsonvalue.Canon(long)
		jsonvalue.Canon(json.Number("1e999999"))
	}
}
