package connector

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":            0,
		"0":           0,
		"-5":          0,
		"3":           3 * time.Second,
		" 2 ":         2 * time.Second,
		"99999999999": 24 * time.Hour,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
		"soon": 0,
	}
	for in, want := range cases {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestBackoffCeilingDoublesUpToTheCap(t *testing.T) {
	t.Parallel()
	c := &Client{baseBackoff: 100 * time.Millisecond, maxBackoff: time.Second}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := c.backoffCeiling(i + 1); got != w*time.Millisecond {
			t.Errorf("backoffCeiling(%d) = %s, want %s", i+1, got, w*time.Millisecond)
		}
	}
}

func TestFullJitterStaysWithinTheCeiling(t *testing.T) {
	t.Parallel()
	seen := map[bool]bool{}
	for range 1000 {
		d := fullJitter(10 * time.Millisecond)
		if d < 0 || d > 10*time.Millisecond {
			t.Fatalf("fullJitter = %s, outside [0, 10ms]", d)
		}
		seen[d < 5*time.Millisecond] = true
	}
	if len(seen) != 2 {
		t.Fatal("fullJitter does not spread over the range")
	}
	if fullJitter(0) != 0 {
		t.Fatal("fullJitter(0) != 0")
	}
}

func TestSafeCode(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"record_not_found":       "record_not_found",
		"ERR-42.v2:x":            "ERR-42.v2:x",
		"bad code with spaces":   "",
		"customer jane@x.test":   "",
		"line\nbreak":            "",
		string(make([]byte, 70)): "",
	}
	for in, want := range cases {
		if got := safeCode(in); got != want {
			t.Errorf("safeCode(%q) = %q, want %q", in, got, want)
		}
	}
	if got := safeCode("abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij"); len(got) != 64 {
		t.Errorf("a long code is not cut to 64 characters: %q", got)
	}
}

func TestRecordURLs(t *testing.T) {
	t.Parallel()
	c := &Client{base: "https://h.example/p"}
	for name, c2 := range map[string][2]string{
		"netsuite":   {netsuite{}.recordURL(c, "sales order", "SO/1"), "https://h.example/p/services/rest/record/v1/sales%20order/SO%2F1"},
		"bc string":  {businessCentral{}.entityURL(c, "salesOrders", "SO/1'x"), "https://h.example/p/salesOrders(%27SO%2F1%27%27x%27)"},
		"bc guid":    {businessCentral{}.entityURL(c, "customers", "8a7f2c1e-0000-4000-8000-00000000c0de"), "https://h.example/p/customers(8a7f2c1e-0000-4000-8000-00000000c0de)"},
		"salesforce": {salesforce{}.rowURL(c, "Account", "", "001x"), "https://h.example/p/services/data/v" + SalesforceAPIVersion + "/sobjects/Account/001x"},
		"sf ext id":  {salesforce{}.rowURL(c, "Account", "Ext__c", "A/1"), "https://h.example/p/services/data/v" + SalesforceAPIVersion + "/sobjects/Account/Ext__c/A%2F1"},
		// MD5 of "urist.mcvankab@freddiesjokes.com", Mailchimp's documented example.
		"mailchimp":   {mailchimp{}.memberURL(c, "list1", "Urist.McVankab@freddiesjokes.com"), "https://h.example/p/3.0/lists/list1/members/62eeb292278cc15f5817cb78f7790b08"},
		"shipstation": {shipstation{}.resourceURL(c, "orders", "1001"), "https://h.example/p/orders/1001"},
	} {
		if c2[0] != c2[1] {
			t.Errorf("%s: URL = %s, want %s", name, c2[0], c2[1])
		}
	}
	for _, s := range Systems {
		if s.ListsSyncErrors() != (s == SystemHostERP) {
			t.Errorf("%s: ListsSyncErrors = %v", s, s.ListsSyncErrors())
		}
	}
	if len(profiles) != len(Systems) {
		t.Fatal("Systems and the profiles table disagree")
	}
}
