package dlp

import (
	"fmt"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

// TestBenchPayloads keeps the benchmark payloads honest: each holds exactly the secrets it
// is built with, and nothing in its clean records is reported.
func TestBenchPayloads(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, p := range dlpcorpus.Payloads() {
		r, err := s.ScanJSON(ConnectorWrite, p.Doc)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if len(r.Findings) != p.Secrets {
			t.Errorf("%s (%d bytes): %d findings, want %d: %+v", p.Name, len(p.Doc), len(r.Findings), p.Secrets, r.Findings)
		}
	}
}

// BenchmarkScanJSON runs the scanner on the payloads for both rewriting destinations. The
// same benchmark with gitleaks v8.30.1 on the same payloads is in shared/dlp/gitleakscmp, a
// module of its own so that this one does not require gitleaks; `make bench` runs both, and
// the sub-benchmark names line up (<payload>/dlp_<destination>, <payload>/gitleaks).
func BenchmarkScanJSON(b *testing.B) {
	s := NewScanner()
	for _, p := range dlpcorpus.Payloads() {
		for _, dest := range []Destination{ConnectorWrite, AIPrompt} {
			b.Run(p.Name+"/dlp_"+string(dest), func(b *testing.B) {
				b.SetBytes(int64(len(p.Doc)))
				b.ReportAllocs()
				var findings int
				for b.Loop() {
					r, err := s.ScanJSON(dest, p.Doc)
					if err != nil {
						b.Fatal(err)
					}
					findings = len(r.Findings)
				}
				b.ReportMetric(float64(findings), "findings")
			})
		}
	}
}

var sinkScanner *Scanner

func BenchmarkNewScanner(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkScanner = NewScanner()
	}
}

// pairRecords is a NetSuite-style record with n custom fields as name/value pairs, half of
// them with the value before the name, and one password among them: the shape the pair
// rules (namedField, the look-ahead for a name after its value) run on. The
// sync-error batches of BenchmarkScanJSON hold no pair.
func pairRecords(n int) []byte {
	b := []byte(`{"id":"4711","customFields":[`)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		switch {
		case k == n/2:
			b = append(b, `{"scriptId":"custentity_api_password","value":"Xk9#mP2vLq"}`...)
		case k%2 == 0:
			b = fmt.Appendf(b, `{"scriptId":"custentity_field_%d","type":"text","value":"Widget %d"}`, k, k)
		default:
			b = fmt.Appendf(b, `{"value":{"id":"%d","refName":"Option %d"},"scriptId":"custentity_list_%d","type":"select"}`, k, k, k)
		}
	}
	return append(b, "]}"...)
}

func BenchmarkScanJSONPairs(b *testing.B) {
	s := NewScanner()
	doc := pairRecords(500)
	for _, dest := range []Destination{ConnectorWrite, AIPrompt} {
		b.Run("500pairs/dlp_"+string(dest), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			var findings int
			for b.Loop() {
				r, err := s.ScanJSON(dest, doc)
				if err != nil {
					b.Fatal(err)
				}
				findings = len(r.Findings)
			}
			if findings != 1 {
				b.Fatalf("%d findings, want 1", findings)
			}
		})
	}
}
