package dlp

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	gitleaks "github.com/zricethezav/gitleaks/v8/detect"
)

// syncErrorRecord is one ERP sync error with the order payload that failed, the kind of
// record scanBeforeSend sees most. It holds no sensitive value: ids, dates, timestamps,
// SKUs, EANs, amounts, a git SHA, a version.
func syncErrorRecord(n int, idempotencyKey bool) string {
	idem := ""
	if idempotencyKey {
		idem = fmt.Sprintf(`"idempotencyKey":"%08x-e29b-41d4-a716-4466554400%02x",`, 0x550e8400+n, n%256)
	}
	return fmt.Sprintf(`{"id":"se_%06d","tenant":"acme","entity":"salesOrder","recordId":"SO-%05d",`+
		`"code":"VALIDATION","message":"Field 'shipToCountry' value 'XX' is not a valid ISO 3166 code",`+
		`"occurredAt":"2026-11-22T10:15:30Z","attempt":3,%s"payload":{"orderNumber":"SO-%05d",`+
		`"externalId":"45000%05d","customerId":"C-%06d","orderDate":"2026-11-22","currency":"EUR",`+
		`"lines":[{"lineNo":10,"sku":"WID-4411-BLK-XL","ean":"4006381333931","qty":3,"unitPrice":129.50,"total":"388.50"},`+
		`{"lineNo":20,"sku":"GAD-0815","ean":"4012345678925","qty":1,"unitPrice":1299.00,"total":"1,299.00"}],`+
		`"totals":{"net":1687.50,"tax":320.63,"gross":2008.13},"shipTo":{"street":"Hauptstrasse 5",`+
		`"city":"Berlin","postalCode":"10115","country":"XX"},"createdAt":1732233600,`+
		`"updatedAtMs":1732233600123,"build":"3f9a1c2b4d5e6f708192a3b4c5d6e7f801234567","client":"v2.260.0"}}`,
		n, 10042+n, idem, 10042+n, n, 118+n)
}

// payload builds a sync-error batch of about size bytes with the secrets spread evenly
// through it, each in a free-text note of its own record.
func payload(size int, secrets []string, idempotencyKey bool) []byte {
	var records []string
	total := 40
	for n := 0; total < size; n++ {
		r := syncErrorRecord(n, idempotencyKey)
		records = append(records, r)
		total += len(r) + 1
	}
	for k, s := range secrets {
		at := (2*k + 1) * len(records) / (2 * len(secrets))
		records[at] = `{"note":"` + s + `",` + records[at][1:]
	}
	doc := `{"batch":"b-2026-11-22","errors":[` + strings.Join(records, ",") + `]}`
	return []byte(doc)
}

var (
	threeSecrets = []string{
		"aws key " + fixtures["AWS_KEY_ID"],
		"token " + fixtures["GH_TOKEN"],
		"stripe " + fixtures["STRIPE_LIVE"],
	}
	fiveSecrets = append(append([]string{}, threeSecrets...),
		"Authorization: Bearer "+fixtures["JWT"],
		strings.ReplaceAll(fixtures["PEM_RSA"], "\n", `\n`),
	)
)

type benchPayload struct {
	name string
	doc  []byte
}

var benchPayloads = sync.OnceValue(func() []benchPayload {
	return []benchPayload{
		{"4KiB_clean", payload(4<<10, nil, false)},
		{"4KiB_3secrets", payload(4<<10, threeSecrets, false)},
		{"4KiB_clean_idempotencyKey", payload(4<<10, nil, true)},
		{"256KiB_clean", payload(256<<10, nil, false)},
		{"256KiB_5secrets", payload(256<<10, fiveSecrets, false)},
		{"256KiB_clean_idempotencyKey", payload(256<<10, nil, true)},
	}
})

func TestBenchPayloads(t *testing.T) {
	t.Parallel()
	s := NewScanner()
	for _, p := range benchPayloads() {
		r, err := s.ScanJSON(ConnectorWrite, p.doc)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		want := 0
		switch {
		case strings.Contains(p.name, "3secrets"):
			want = 3
		case strings.Contains(p.name, "5secrets"):
			want = 5
		}
		if len(r.Findings) != want {
			t.Errorf("%s (%d bytes): %d findings, want %d: %+v", p.name, len(p.doc), len(r.Findings), want, r.Findings)
		}
	}
}

// BenchmarkScanJSON compares the scanner with gitleaks v8.30.1 (default config, DetectString)
// on the same payloads, in one run.
func BenchmarkScanJSON(b *testing.B) {
	s := NewScanner()
	for _, p := range benchPayloads() {
		for _, dest := range []Destination{ConnectorWrite, AIPrompt} {
			b.Run(p.name+"/dlp_"+string(dest), func(b *testing.B) {
				b.SetBytes(int64(len(p.doc)))
				b.ReportAllocs()
				var findings int
				for b.Loop() {
					r, err := s.ScanJSON(dest, p.doc)
					if err != nil {
						b.Fatal(err)
					}
					findings = len(r.Findings)
				}
				b.ReportMetric(float64(findings), "findings")
			})
		}
		b.Run(p.name+"/gitleaks", func(b *testing.B) {
			d, err := gitleaks.NewDetectorDefaultConfig()
			if err != nil {
				b.Fatal(err)
			}
			content := string(p.doc)
			b.SetBytes(int64(len(p.doc)))
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
