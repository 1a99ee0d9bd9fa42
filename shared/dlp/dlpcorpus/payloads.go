package dlpcorpus

import (
	"fmt"
	"strings"
	"sync"
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
		"aws key " + Fixtures["AWS_KEY_ID"],
		"token " + Fixtures["GH_TOKEN"],
		"stripe " + Fixtures["STRIPE_LIVE"],
	}
	fiveSecrets = append(append([]string{}, threeSecrets...),
		"Authorization: Bearer "+Fixtures["JWT"],
		strings.ReplaceAll(Fixtures["PEM_RSA"], "\n", `\n`),
	)
)

// Payload is one document of the scanning benchmarks.
type Payload struct {
	Name    string
	Doc     []byte
	Secrets int // how many of the secrets above it holds, each one finding
}

// payloads are built once, on first use: the 256 KiB ones take a while to assemble.
var payloads = sync.OnceValue(func() []Payload {
	return []Payload{
		{"4KiB_clean", payload(4<<10, nil, false), 0},
		{"4KiB_3secrets", payload(4<<10, threeSecrets, false), 3},
		{"4KiB_clean_idempotencyKey", payload(4<<10, nil, true), 0},
		{"256KiB_clean", payload(256<<10, nil, false), 0},
		{"256KiB_5secrets", payload(256<<10, fiveSecrets, false), 5},
		{"256KiB_clean_idempotencyKey", payload(256<<10, nil, true), 0},
	}
})

// Payloads are the sync-error batches BenchmarkScanJSON runs on, in shared/dlp for the
// scanner and in shared/dlp/gitleakscmp for gitleaks: 4 KiB and 256 KiB, clean, with
// secrets, and clean with an idempotency key (a UUID) in every record. The slice is shared:
// do not modify it.
func Payloads() []Payload { return payloads() }
