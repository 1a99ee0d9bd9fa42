package dlp

import (
	"strings"
	"testing"
	"time"
)

// budget is how long a hostile input of 256 KiB may take: a multiple of a clean text of the
// same size timed in the same run (so the race detector or a slow machine scale both), far
// below what a quadratic scan would need (minutes).
func budget(t *testing.T, s *Scanner) time.Duration {
	clean := strings.Repeat("Sync of SO-10042 failed at 2026-11-22T10:15:30Z, retry 3 of 5. ", 256<<10/64)
	start := time.Now()
	if _, err := s.ScanText(Record, clean); err != nil {
		t.Fatal(err)
	}
	return 50*time.Since(start) + 50*time.Millisecond
}

// TestAdversarialInputsStayLinear feeds each detector's worst case: a 256 KiB string made
// of its trigger repeated.
func TestAdversarialInputsStayLinear(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	limit := budget(t, s)
	for _, unit := range []string{
		"a@", "a.", "@a.co", "password=", "pwd=x", "password: ", "sat_", "sat_a1", "ghp_", "xoxb-1",
		"eyJ", "eyJhbGciOiJub25lIn0.", "-----BEGIN ", "-----BEGIN RSA PRIVATE KEY-----", "4111 ",
		"1-", "+1 ", "+", "(", "://", "a://b:c@", "AKIA", "DE89 ", "A/", "a+b/", "Bearer ", "Basic ",
		"ssn ", "tel 1", ":", "=", "0123456789abcdef0123456789abcdef-us1 ", "key=", "[REDACTED:X]",
	} {
		text := strings.Repeat(unit, 256<<10/len(unit))
		start := time.Now()
		if _, err := s.ScanText(Record, text); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > limit {
			t.Errorf("%q repeated: %v", unit, d)
		} else {
			t.Logf("%-40q %v", unit, d)
		}
	}
}

func TestAdversarialDocumentsStayLinear(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	limit := budget(t, s)
	deep := strings.Repeat(`{"a":[`, maxDepth/2-1) + strings.Repeat(`"j@x.io",`, 20000) + `1` + strings.Repeat(`]}`, maxDepth/2-1)
	for name, doc := range map[string]string{
		"deep with findings": deep,
		"many findings":      `[` + strings.Repeat(`"j@x.io",`, 30000) + `1]`,
		"many keys":          `{` + strings.Repeat(`"password":"hunter22",`, 12000) + `"a":1}`,
		"escaped strings":    `[` + strings.Repeat(`"\u0041KIA\u005a7QWERTY2PLMNB3X",`, 8000) + `1]`,
		// Each value member first in its object looks ahead for a name after it (namedAfter).
		"values first": `[` + strings.Repeat(`{"value":{"id":"4711","refName":"Widget"},"type":"select","name":"password"},`, 3000) + `1]`,
		// A label naming a secret asks the input member (typedSecret) per value member: once.
		"typed values":             `{"label":"Password","type":"` + strings.Repeat("x", 128<<10) + `",` + strings.Repeat(`"value":1,`, 20000) + `"a":1}`,
		"typed values, short type": `{"label":"Password","type":"` + strings.Repeat("pass word ", 6) + `",` + strings.Repeat(`"value":"Expired",`, 20000) + `"a":1}`,
		"nested values":            `{"password":` + strings.Repeat(`{"value":`, maxDepth-2) + `"letmein"` + strings.Repeat(`}`, maxDepth-1),
		"nested value lists": `{"password":` + strings.Repeat(`{"value":["`+strings.Repeat("x", 200)+`",`, maxDepth/10) +
			`1` + strings.Repeat(`]}`, maxDepth/10) + `}`,
	} {
		start := time.Now()
		r, err := s.ScanJSON(AIPrompt, []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pathBytes := 0
		for _, f := range r.Findings {
			pathBytes += len(f.Path)
		}
		d := time.Since(start)
		t.Logf("%-20s %7d bytes %6d findings %8d path bytes %v", name, len(doc), len(r.Findings), pathBytes, d)
		if d > 2*limit || pathBytes > 64*len(r.Findings)+1<<20 {
			t.Errorf("%s: %v, %d bytes of paths", name, d, pathBytes)
		}
	}
}
