package dlp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A hostile input is timed against itself at a sixteenth of its size, not against a clean
// text timed once: a scan that stays linear takes about sixteen times as long, a quadratic
// one 256. A bound on the time alone failed under load (make test on a fresh clone,
// 2026-12-02: "a://b:c@" at 256 KiB took 730 ms under the race detector, over 50 times a
// clean text timed while the machine was less busy), though the scan is linear in its
// steps and its allocation. Its time is not quite: the inputs dense with findings allocate
// megabytes (spans, findings, the masked copy), and on this machine fresh memory and the
// collector made the same scan 1.5-6.7 ms at 64 KiB and 20-40 ms at 256 KiB
// (a throwaway benchmark, 2026-12-02), so the ratio alone runs up to ×350 with nothing quadratic.
// A scan fails only when both are out of line: it grew far faster than its input and took
// seconds, which a quadratic scan of 256 KiB does (the pair scan fixed in 81388b3 took
// 10.8 s for 320 KB) and no linear one has (0.73 s at most, race detector, loaded).
const (
	scaleUp = 16
	// maxGrowth is four times a linear scan's growth and a quarter of a quadratic one's.
	maxGrowth = 64
	// quadraticFloor is the time the full-size input must also take to fail.
	quadraticFloor = 2 * time.Second
)

// fastest is the shortest of three runs of scan, each after a collection: a run that lost
// its core to another package's tests says nothing about the scan, and neither does one
// charged for marking a heap others left (a collection's assists fall on whoever allocates
// during it). So the two tests below do not run in parallel with the package's others.
func fastest(t *testing.T, scan func() error) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		runtime.GC()
		start := time.Now()
		if err := scan(); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// growth times scan on build(1) and build(scaleUp) and fails when the larger took more
// than maxGrowth times the smaller and at least quadraticFloor.
func growth(t *testing.T, name string, build func(scale int) string, scan func(string) error) {
	t.Helper()
	small, large := build(1), build(scaleUp)
	ts := fastest(t, func() error { return scan(small) })
	tl := fastest(t, func() error { return scan(large) })
	ratio := float64(tl) / float64(max(ts, time.Microsecond))
	msg := fmt.Sprintf("%-40s %7d bytes %10v, %8d bytes %10v: ×%.1f", name, len(small), ts, len(large), tl, ratio)
	if ratio > maxGrowth && tl > quadraticFloor {
		t.Errorf("%s (a linear scan grows about ×%d)", msg, scaleUp)
	} else {
		t.Log(msg)
	}
}

// TestAdversarialInputsStayLinear feeds each detector's worst case: a string of up to
// 256 KiB made of its trigger repeated.
func TestAdversarialInputsStayLinear(t *testing.T) {
	s := NewScanner()
	scan := func(text string) error { _, err := s.ScanText(Record, text); return err }
	for _, unit := range []string{
		"a@", "a.", "@a.co", "password=", "pwd=x", "password: ", "sat_", "sat_a1", "ghp_", "xoxb-1",
		"eyJ", "eyJhbGciOiJub25lIn0.", "-----BEGIN ", "-----BEGIN RSA PRIVATE KEY-----", "4111 ",
		"1-", "+1 ", "+", "(", "://", "a://b:c@", "AKIA", "DE89 ", "A/", "a+b/", "Bearer ", "Basic ",
		"ssn ", "tel 1", ":", "=", "0123456789abcdef0123456789abcdef-us1 ", "key=", "[REDACTED:X]",
	} {
		growth(t, fmt.Sprintf("%q", unit), func(scale int) string {
			return strings.Repeat(unit, scale*(256<<10/scaleUp)/len(unit))
		}, scan)
	}
}

func TestAdversarialDocumentsStayLinear(t *testing.T) {
	s := NewScanner()
	// Each document at scale scaleUp is the size this test has always used; at scale 1 its
	// repeated part (members, or nesting depth) is a sixteenth of that.
	of := func(n, scale int) int { return n * scale / scaleUp }
	for name, doc := range map[string]func(scale int) string{
		"deep with findings": func(k int) string {
			d := of(maxDepth/2-1, k)
			return strings.Repeat(`{"a":[`, d) + strings.Repeat(`"j@x.io",`, of(20000, k)) + `1` + strings.Repeat(`]}`, d)
		},
		"many findings": func(k int) string { return `[` + strings.Repeat(`"j@x.io",`, of(30000, k)) + `1]` },
		"many keys":     func(k int) string { return `{` + strings.Repeat(`"password":"hunter22",`, of(12000, k)) + `"a":1}` },
		"escaped strings": func(k int) string {
			return `[` + strings.Repeat(`"\u0041KIA\u005a7QWERTY2PLMNB3X",`, of(8000, k)) + `1]`
		},
		// Each value member first in its object looks ahead for a name after it (namedAfter).
		"values first": func(k int) string {
			return `[` + strings.Repeat(`{"value":{"id":"4711","refName":"Widget"},"type":"select","name":"password"},`, of(3000, k)) + `1]`
		},
		// A label naming a secret asks the input member (typedSecret) per value member: once.
		"typed values": func(k int) string {
			return `{"label":"Password","type":"` + strings.Repeat("x", of(128<<10, k)) + `",` + strings.Repeat(`"value":1,`, of(20000, k)) + `"a":1}`
		},
		"typed values, short type": func(k int) string {
			return `{"label":"Password","type":"` + strings.Repeat("pass word ", 6) + `",` + strings.Repeat(`"value":"Expired",`, of(20000, k)) + `"a":1}`
		},
		"nested values": func(k int) string {
			d := of(maxDepth-2, k)
			return `{"password":` + strings.Repeat(`{"value":`, d) + `"letmein"` + strings.Repeat(`}`, d+1)
		},
		"nested value lists": func(k int) string {
			d := of(maxDepth/10, k)
			return `{"password":` + strings.Repeat(`{"value":["`+strings.Repeat("x", 200)+`",`, d) + `1` + strings.Repeat(`]}`, d) + `}`
		},
	} {
		growth(t, name, doc, func(d string) error { _, err := s.ScanJSON(AIPrompt, []byte(d)); return err })
		// What a full-size scan reports stays in proportion to its findings too.
		full := doc(scaleUp)
		r, err := s.ScanJSON(AIPrompt, []byte(full))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pathBytes := 0
		for _, f := range r.Findings {
			pathBytes += len(f.Path)
		}
		if pathBytes > 64*len(r.Findings)+1<<20 {
			t.Errorf("%s: %d findings, %d bytes of paths", name, len(r.Findings), pathBytes)
		}
	}
}
