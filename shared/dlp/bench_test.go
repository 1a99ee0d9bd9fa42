package dlp

import (
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
