package httpapi

import (
	"errors"
	"time"
)

// ErrNotRFC3339 is ParseTime's answer for text that is not an RFC 3339 date-time.
var ErrNotRFC3339 = errors.New("not an RFC 3339 date-time")

// ParseTime parses an RFC 3339 date-time such as 2026-11-22T09:30:00Z, strictly: Go's
// time.RFC3339 layout also takes a one-digit hour ("T9:30:00Z") and a comma before the
// fraction, which RFC 3339 does not, and a value the service accepts is stored and passed
// on (to an ERP, a report) as given. Ranges (month 13, hour 24) are time.Parse's to refuse.
// The shape is checked by hand, not by a regular expression compiled at every function's
// start.
func ParseTime(s string) (time.Time, error) {
	if !rfc3339Shape(s) {
		return time.Time{}, ErrNotRFC3339
	}
	return time.Parse(time.RFC3339Nano, s)
}

// rfc3339Shape reports whether s is YYYY-MM-DDTHH:MM:SS, an optional "." and digits, then
// Z or ±HH:MM.
func rfc3339Shape(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(head)+1 {
		return false
	}
	for i := range len(head) {
		if head[i] == 'd' && !isDigit(s[i]) || head[i] != 'd' && s[i] != head[i] {
			return false
		}
	}
	rest := s[len(head):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	switch {
	case rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		return isDigit(rest[1]) && isDigit(rest[2]) && isDigit(rest[4]) && isDigit(rest[5])
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
