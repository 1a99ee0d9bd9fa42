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
// and a real trace, which it also compresses to under 45 %.
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
		if name == "trace" && len(z)*100 > len(in)*45 {
			t.Errorf("the trace: %d bytes deflated to %d, over 45 %%", len(in), len(z))
		}
	}
}
