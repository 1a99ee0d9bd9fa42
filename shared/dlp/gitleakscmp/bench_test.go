package gitleakscmp

import (
	"testing"

	gitleaks "github.com/zricethezav/gitleaks/v8/detect"

	"github.com/syncassist/syncassist/shared/dlp/dlpcorpus"
)

// BenchmarkScanJSON runs gitleaks (default config, DetectString) on the payloads the
// scanner's BenchmarkScanJSON in shared/dlp runs on, under the same name and payload
// sub-names, so the two outputs of `make bench` line up: <payload>/dlp_<destination>
// there, <payload>/gitleaks here.
func BenchmarkScanJSON(b *testing.B) {
	for _, p := range dlpcorpus.Payloads() {
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

// BenchmarkGitleaksNewDetector is the cost of building a detector, which a Lambda would pay
// on every cold start; BenchmarkNewScanner in shared/dlp is the scanner's.
func BenchmarkGitleaksNewDetector(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gitleaks.NewDetectorDefaultConfig(); err != nil {
			b.Fatal(err)
		}
	}
}
