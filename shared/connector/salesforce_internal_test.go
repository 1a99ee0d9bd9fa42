package connector

import (
	"testing"
	"time"
)

// The read's LastModifiedDate goes out as an HTTP date rounded up, so the record just read
// is never "modified after" it however Salesforce compares.
func TestHTTPDateAtOrAfter(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-27T10:00:00.000+0000": "Fri, 27 Nov 2026 10:00:00 GMT",
		"2026-11-27T10:00:00.500+0000": "Fri, 27 Nov 2026 10:00:01 GMT",
		"2026-11-27T11:59:59.999+0100": "Fri, 27 Nov 2026 11:00:00 GMT",
	} {
		at, err := time.Parse(salesforceStamp, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := httpDateAtOrAfter(at); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
