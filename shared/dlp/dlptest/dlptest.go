// Package dlptest provides values the dlp scanner reports, for the tests of packages that
// scan before they send: the guarded connector write, the AI client, the audit writer. A
// test can put one in a payload and assert that the write is blocked or the prompt
// anonymized, without inventing its own fake credentials.
//
// Credentials are assembled at run time so that the repository never holds a string that
// push protection or a secret scanner would take for a real key. None of them is real.
package dlptest

import (
	"encoding/base64"
	"strings"
)

func join(parts ...string) string { return strings.Join(parts, "") }

// Values that block a connector write.
var (
	CardNumber         = "4111 1111 1111 1111" // a Visa test number (Luhn-valid)
	AWSAccessKeyID     = join("AKIA", "Z7QWERTY2PLMNB3X")
	AWSSecretAccessKey = join("q8Zr3LmN5vB1xT7y", "U9iO0pA2sD4fG6hJ8kL+", "wE/r")
	GitHubToken        = join("gh", "p_", "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5")
	StripeLiveKey      = join("sk", "_live_", "51HqL2mKb3Nc4Pd5Qe6Rf7Sg8Th9Ui0Vj")
	JWT                = jwt()
	PrivateKey         = join("-----BEGIN ", "RSA PRIVATE KEY-----\n",
		"MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n",
		"-----END ", "RSA PRIVATE KEY-----")
	SSN = "123-45-6789"
)

// Contact data: reported, anonymized for prompts, but allowed on connector writes.
var (
	Email = "jane.doe@example.com"
	Phone = "+1 (415) 555-2671"
	IBAN  = "DE89 3704 0044 0532 0130 00"
)

func jwt() string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"sub":"cust-42","tenant":"acme"}`)) + "." +
		"dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
}

// SalesOrder returns a sales-order payload whose customer carries contact data, plus the
// given extra fields (JSON members, e.g. `"note":"..."`), so a test can add the secret it
// needs.
func SalesOrder(extra ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"salesOrder":{"id":"SO-10042","orderDate":"2026-11-22","currency":"EUR",` +
		`"customer":{"id":"C-000118","email":"` + Email + `","phone":"` + Phone + `"},` +
		`"lines":[{"lineNo":10,"sku":"WID-4411-BLK-XL","qty":3,"unitPrice":129.50}]`)
	for _, e := range extra {
		b.WriteString(",")
		b.WriteString(e)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}
