package governance

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// checkCanonical fails unless canonicalJSON writes exactly what json.Marshal writes for
// fields, or fails exactly when json.Marshal fails: ledger hashes written before the
// encoder existed must still match.
func checkCanonical(t *testing.T, fields map[string]any) {
	t.Helper()
	want, wantErr := json.Marshal(fields)
	got, err := canonicalJSON([]byte("prefix"), fields, nil)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("canonicalJSON error %v, json.Marshal error %v", err, wantErr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("canonicalJSON differs from json.Marshal:\n got %q\nwant prefix%q", got, want)
	}
	if names := sortedKeys(fields); fields != nil {
		if got, _ := canonicalJSON(nil, fields, names); !bytes.Equal(got, want) {
			t.Fatalf("with sorted names:\n got %q\nwant %q", got, want)
		}
	}
}

type textValue string

func (v textValue) MarshalJSON() ([]byte, error) { return []byte(`"marshaled"`), nil }

func TestCanonicalJSONMatchesMarshal(t *testing.T) {
	t.Parallel()
	cyclic := map[string]any{"a": 1}
	cyclic["self"] = cyclic
	deep := map[string]any{"v": "bottom"}
	for range 200 {
		deep = map[string]any{"d": []any{deep}}
	}
	type named string
	cases := map[string]map[string]any{
		"nil":   nil,
		"empty": {},
		"scalars": {"s": "plain", "t": true, "f": false, "n": nil, "i": 42, "i64": int64(-7), "i32": int32(3),
			"u64": uint64(math.MaxUint64), "num": json.Number("12.50"), "zeroNum": json.Number("")},
		"floats": {"a": 0.0, "b": math.Copysign(0, -1), "c": 1e21, "d": 1e20, "e": 1e-6, "f": 1e-7, "g": 123456789.125,
			"h": -5e-324, "i": math.MaxFloat64, "j": 0.1 + 0.2, "k": 1.5e-10, "l": 100.0},
		"nan":           {"x": math.NaN()},
		"inf":           {"x": math.Inf(-1)},
		"badNumber":     {"x": json.Number("1.")},
		"badNumber2":    {"x": json.Number("0x10")},
		"numberExp":     {"a": json.Number("-0.5e+10"), "b": json.Number("1E5"), "c": json.Number("1e")},
		"escapes":       {"q": `say "hi" \ there`, "c": "\x00\x01\b\f\n\r\t\x1f\x7f", "html": "<a href='x'>&amp;</a>"},
		"utf8":          {"ü": "Müller – straße 😀", "bad": "a\xffb\xc3", "sep": "line\u2028para\u2029end", "bom": "\ufeff"},
		"keysSorted":    {"b": 1, "a": 2, "B": 3, "ä": 4, "a\x00": 5, "<k>": 6, "": 7},
		"nested":        {"m": map[string]any{"z": []any{1.5, "x", nil, map[string]any{"k": []string{"a", "<"}}}, "a": map[string]any{}}, "l": []any{}},
		"nilContainers": {"m": map[string]any(nil), "l": []any(nil), "s": []string(nil)},
		"struct":        {"t": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "p": struct{ A int }{1}},
		"named":         {"n": named("x"), "m": textValue("y")},
		"typedMap":      {"m": map[string]string{"b": "1", "a": "2"}, "i": []int{1, 2}, "f32": float32(0.1)},
		"bytes":         {"b": []byte("raw")},
		"cyclic":        cyclic,
		"deep":          deep,
	}
	for name, fields := range cases {
		t.Run(name, func(t *testing.T) { checkCanonical(t, fields) })
	}
}

// FuzzCanonicalJSON compares the encoder with json.Marshal on whatever a JSON decoder
// makes of the input (numbers as float64 and as json.Number) and on raw strings, which a
// decoder never yields with invalid UTF-8.
func FuzzCanonicalJSON(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, `{"n":[1,2.5,-0,1e300,"x"],"m":{"<":"&"}}`, `{"s":"\u2028\ud800"}`,
		`[1,"two",{"3":null}]`, `"just a string"`, `1e-7`} {
		f.Add([]byte(seed), "k\xff<", 1.5e-9, "12.0")
	}
	f.Fuzz(func(t *testing.T, doc []byte, s string, x float64, num string) {
		var plain any
		if json.Unmarshal(doc, &plain) == nil {
			checkCanonical(t, map[string]any{"v": plain})
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var numbers any
		if dec.Decode(&numbers) == nil {
			checkCanonical(t, map[string]any{"v": numbers})
			if m, ok := numbers.(map[string]any); ok {
				checkCanonical(t, m)
			}
		}
		checkCanonical(t, map[string]any{s: s, "x": x, "num": json.Number(num), "l": []any{s, x}, "ss": []string{s, strings.ToUpper(s)}})
	})
}

// TestCanonicalFastPath keeps the values connector payloads hold off the json.Marshal
// fallback, which is what makes the encoder worth having.
func TestCanonicalFastPath(t *testing.T) {
	t.Parallel()
	fields := map[string]any{"s": "x", "n": json.Number("1"), "f": 2.5, "i": 3, "b": true, "z": nil,
		"m": map[string]any{"l": []any{"a", 1.0}, "s": []string{"b"}}}
	if _, ok := appendObject(nil, fields, nil, 0); !ok {
		t.Fatal("a decoded JSON document fell back to json.Marshal")
	}
}

// TestCanonicalStringEveryByteEveryLane puts each of the 256 byte values at each offset of
// strings long enough to take the word-at-a-time path, so a byte the word test let through
// unescaped would show up as a difference from json.Marshal.
func TestCanonicalStringEveryByteEveryLane(t *testing.T) {
	t.Parallel()
	base := []byte(strings.Repeat("abcdefgh", 3))
	for c := range 256 {
		for i := range base {
			s := bytes.Clone(base)
			s[i] = byte(c)
			want, _ := json.Marshal(string(s))
			if got := appendJSONString(nil, string(s)); !bytes.Equal(got, want) {
				t.Fatalf("byte %#x at %d: got %q, want %q", c, i, got, want)
			}
		}
	}
}
