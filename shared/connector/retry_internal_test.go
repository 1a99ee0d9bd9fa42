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

func TestRecordPaths(t *testing.T) {
	t.Parallel()
	want := map[System]string{
		SystemHostERP:   "/api/records/sales%20order/SO%2F1",
		SystemERP2:      "/v2/sales%20order/SO%2F1",
		SystemCRM:       "/crm/v1/objects/sales%20order/SO%2F1",
		SystemMarketing: "/marketing/v3/sales%20order/SO%2F1",
		SystemShipping:  "/shipping/v1/sales%20order/SO%2F1",
	}
	for _, s := range Systems {
		if got := s.recordPath("sales order", "SO/1"); got != want[s] {
			t.Errorf("%s: recordPath = %s, want %s", s, got, want[s])
		}
		if s.ListsSyncErrors() != (s == SystemHostERP) {
			t.Errorf("%s: ListsSyncErrors = %v", s, s.ListsSyncErrors())
		}
	}
	if len(conventions) != len(Systems) {
		t.Fatal("Systems and the conventions table disagree")
	}
}
