package deflate

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// Compress's output inflates, with compress/flate's reader (Inflate), to its input: empty, short,
// random (no matches), runs (overlapping copies of 258), text with far and near repeats,
// and a real trace, which it also compresses to under 40 % (the longest of 64 earlier
// matches: the last one alone made it 42 %).
func TestDeflateInflatesToItsInput(t *testing.T) {
	trace, err := os.ReadFile("../audit/testdata/trace_rules.json")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	mixed := make([]byte, 0, 100000)
	for len(mixed) < 100000 {
		n := 1 + r.IntN(300)
		if p := r.IntN(len(mixed) + 1); r.IntN(2) == 0 && p+n <= len(mixed) {
			mixed = append(mixed, mixed[p:p+n]...) // a copy from up to 100 KB back
		} else {
			mixed = append(mixed, random[:n]...)
		}
	}
	for name, in := range map[string][]byte{"empty": nil, "one": []byte("x"), "three": []byte("abc"),
		"run": bytes.Repeat([]byte{'a'}, 1000), "random": random, "mixed": mixed,
		"text": []byte(strings.Repeat("the wording vendors' error references share for this kind of failure; ", 40)), "trace": trace} {
		z := Compress(in)
		out, err := Inflate(z)
		if err != nil || !bytes.Equal(out, in) {
			t.Errorf("%s: %d bytes deflated to %d inflate to %d (%v), want the input", name, len(in), len(z), len(out), err)
		}
		if name == "trace" && len(z)*100 > len(in)*40 {
			t.Errorf("the trace: %d bytes deflated to %d, over 40 %%", len(in), len(z))
		}
		// With a dictionary (here unrelated bytes, then text it holds) the output
		// inflates to the input given the same dictionary.
		for _, dict := range []string{string(random[:3000]), string(mixed[:5000])} {
			z := CompressDict(in, dict)
			out, err := InflateDict(z, dict)
			if err != nil || !bytes.Equal(out, in) {
				t.Errorf("%s with a %d-byte dictionary: inflates to %d bytes (%v), want the input", name, len(dict), len(out), err)
			}
		}
	}
}

// Text the dictionary holds is copied from it: a document made of the dictionary's
// phrases, one of them running on past the dictionary's end into the document, deflates
// to a few bytes per phrase, and does not inflate to itself without the dictionary.
func TestDeflateCopiesFromTheDictionary(t *testing.T) {
	dict := `{"operation":"suggest","model":"rules-v1","response":{"class":"value","retryable":false,`
	doc := []byte(`{"operation":"suggest","model":"rules-v1","response":{"class":"value","retryable":false,` +
		`"retryable":false,"summary":"x"}}`)
	z := CompressDict(doc, dict)
	if len(z) > 24 {
		t.Errorf("%d bytes made of the dictionary's text deflate to %d, want at most 24", len(doc), len(z))
	}
	if out, err := InflateDict(z, dict); err != nil || !bytes.Equal(out, doc) {
		t.Fatalf("inflates to %q (%v), want the document", out, err)
	}
	if out, err := Inflate(z); err == nil && bytes.Equal(out, doc) {
		t.Error("inflates to the document without the dictionary")
	}
	if without := Compress(doc); len(without) < 2*len(z) {
		t.Errorf("without the dictionary %d bytes, with it %d: want it to at least halve them", len(without), len(z))
	}
}
