package httpapi_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

func TestParseTimeIsStrictRFC3339(t *testing.T) {
	for s, want := range map[string]time.Time{
		"2026-11-22T09:30:00Z":           time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
		"2026-11-22T11:30:00.5+02:00":    time.Date(2026, 11, 22, 9, 30, 0, 5e8, time.UTC),
		"2026-11-22T09:30:00.123456789Z": time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.UTC),
	} {
		got, err := httpapi.ParseTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{
		"2026-11-22T9:30:00Z",    // one-digit hour: time.RFC3339 takes it
		"2026-11-22T09:30:00,5Z", // comma before the fraction: time.RFC3339 takes it
		"2026-11-22 09:30:00Z",   // space for T
		"2026-11-22T09:30:00",    // no offset
		"2026-11-22T24:00:00Z",   // hour out of range
		"2026-13-01T09:30:00Z",   // month out of range
		"2026-11-22T09:30:00Z ",  // trailing text
		"2026-11-22",             // a date alone
	} {
		if got, err := httpapi.ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", s, got)
		}
	}
}
