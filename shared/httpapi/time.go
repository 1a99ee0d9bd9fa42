package httpapi

import (
	"errors"
	"regexp"
	"time"
)

// rfc3339 is RFC 3339's date-time (section 5.6) with an upper-case T and Z, as Go writes it.
var rfc3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)

// ErrNotRFC3339 is ParseTime's answer for text that is not an RFC 3339 date-time.
var ErrNotRFC3339 = errors.New("not an RFC 3339 date-time")

// ParseTime parses an RFC 3339 date-time such as 2026-11-22T09:30:00Z, strictly: Go's
// time.RFC3339 layout also takes a one-digit hour ("T9:30:00Z") and a comma before the
// fraction, which RFC 3339 does not, and a value the service accepts is stored and passed
// on (to an ERP, a report) as given. Ranges (month 13, hour 24) are time.Parse's to refuse.
func ParseTime(s string) (time.Time, error) {
	if !rfc3339.MatchString(s) {
		return time.Time{}, ErrNotRFC3339
	}
	return time.Parse(time.RFC3339Nano, s)
}
