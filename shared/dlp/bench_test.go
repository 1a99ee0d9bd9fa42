package dlp

import (
	"testing"

	gitleaks "github.com/zricethezav/gitleaks/v8/detect"

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

// BenchmarkScanJSON compares the scanner with gitleaks v8.30.1 (default config, DetectString)
// on the same payloads, in one run.
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
		b.Run(p.Name+"/gitleaks", func(b *testing.B) {
			d, err := gitleaks.NewDetectorDefaultConfig()
			if err != nil {
				b.Fatal(err)
			}
			content := string(p.Doc)
			b.SetBytes(int64(len(p.Doc)))
			b.ReportAllocs()
			var findings int
			for b.Loop() {
				findings = len(d.DetectString(content))
			}
			b.ReportMetric(float64(findings), "findings")
		})
	}
}

var sinkScanner *Scanner

func BenchmarkNewScanner(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkScanner = NewScanner()
	}
}

func BenchmarkGitleaksNewDetector(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gitleaks.NewDetectorDefaultConfig(); err != nil {
			b.Fatal(err)
		}
	}
}
