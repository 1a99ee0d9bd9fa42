package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Sentinels callers branch on with errors.Is. Every error from a Client call is an *Error
// wrapping exactly one of the first seven.
var (
	// ErrNotFound: the record does not exist (404, 410).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the record changed underneath the write (409, 412).
	ErrConflict = errors.New("conflict")
	// ErrValidation: the system refused the request as it stands (400, 422 and other 4xx
	// without a meaning of their own); sending it again unchanged will not help. A reused
	// idempotency key with a different body lands here too (422 idempotency_key_reused): it
	// is a caller bug, not a race.
	ErrValidation = errors.New("rejected as invalid")
	// ErrUnauthorized: the token is missing, wrong or lacks rights (401, 403).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrRateLimited: the system asked us to slow down (429) and retries did not get through.
	ErrRateLimited = errors.New("rate limited")
	// ErrUnavailable: the system could not be reached or failed (5xx, timeouts, connection
	// errors, unreadable answers).
	ErrUnavailable = errors.New("unavailable")
	// ErrUnsupported: the system has no such operation (ListSyncErrors outside the host ERP).
	ErrUnsupported = errors.New("not supported by this system")

	// ErrNotConfigured is returned by a ConfigSource (and passed on by Registry) when a
	// tenant has no connector for a system; the finance approval answers 503 on it.
	ErrNotConfigured = errors.New("connector not configured")
	// ErrInvalidConfig is returned by New for a Config it cannot use.
	ErrInvalidConfig = errors.New("invalid connector config")
)

// Operations named in Error.Op.
const (
	OpGet            = "get"
	OpWrite          = "write"
	OpListSyncErrors = "list_sync_errors"
	OpChanges        = "changes"
)

// Error is a failed connector call. Its text is safe to log: it never holds response
// bodies, field values or tokens.
type Error struct {
	System System
	Op     string
	// Status is the HTTP status of the last attempt, 0 when none was received.
	Status int
	// Code is the system's error code from the body of the last answer, if it sent one.
	Code string
	// Retryable says the failure is transient: the same request may succeed later. It is
	// true for the failures the client retries itself, after its attempts ran out.
	Retryable bool
	// RetryAfter is what the system asked for with Retry-After, when it did.
	RetryAfter time.Duration
	// Attempts is how many requests were sent (0 when the request was refused locally).
	Attempts int
	// Err is the sentinel.
	Err error
	// Cause is the transport or context error behind an ErrUnavailable, if any, or what the
	// system's answer said beyond its code (never a value from it).
	Cause error
	// Later, set on a write one of whose attempts went unanswered (this error describes
	// that attempt: Status, Code and Cause are its own), is how the attempts after it
	// failed: a 429, a refused connection, a refusal or a read that did not find the values
	// yet. None of them shows the unanswered request did not land, so the error stays
	// ErrUnavailable and MayHaveApplied. It is set too on a write whose request was
	// answered 2xx but whose record could not be read back (Cause errUnreadAfterWrite):
	// Later is that read's failure. Later is kept for logs (Error's text) and for a caller
	// that wants the detail, but Unwrap leaves it out, so that errors.Is does not find its
	// sentinel (ErrRateLimited, ErrValidation, ...) and take the "nothing was written" path
	// the earlier request rules out.
	Later error
	// deferred: the system's wait is the caller's to schedule, not this call's to sleep.
	deferred bool
	// unapplied: the system's own answer says it did not carry the request out (Salesforce's
	// UNABLE_TO_LOCK_ROW), so a write's request may be sent again as it stands and the
	// failure is never MayHaveApplied (notApplied).
	unapplied bool
	// written: the failed request was a write's own (not its read), which Write may try
	// again after a read (writeUntilLanded).
	written bool
	// unansweredBefore: an earlier attempt of the same write got no final answer (no
	// answer, or a gateway's), so it may still land whatever this attempt was told.
	unansweredBefore bool
	// notSent: the failing request writes nothing (a GET: the read of read-compare-write;
	// or the credential's token request, before the write's own request went out), and
	// no earlier attempt of the write sent its request either (WriteSent).
	notSent bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "connector %s %s: %v", e.System, e.Op, e.Err)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.Code != "" {
			fmt.Fprintf(&b, ", code %s", e.Code)
		}
		b.WriteString(")")
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %v", e.Cause)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Later != nil {
		fmt.Fprintf(&b, "; then: %v", e.Later)
	}
	return b.String()
}

// Unwrap gives errors.Is and errors.As both the sentinel and the cause (not Later: see
// there).
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// classifyStatus maps an HTTP status to its sentinel and whether the client retries it.
// Only 502/503/504 and 429 are retried: they are the statuses a gateway or a busy system
// sends when the same request will work in a moment.
func classifyStatus(status int) (sentinel error, retryable bool) {
	switch {
	case status == http.StatusNotFound, status == http.StatusGone:
		return ErrNotFound, false
	case status == http.StatusConflict, status == http.StatusPreconditionFailed:
		return ErrConflict, false
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ErrUnauthorized, false
	case status == http.StatusTooManyRequests:
		return ErrRateLimited, true
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable,
		status == http.StatusGatewayTimeout:
		return ErrUnavailable, true
	case status == http.StatusRequestTimeout:
		// The system gave up waiting for our body; that says nothing about the record,
		// but 4xx is never retried, so the caller decides.
		return ErrUnavailable, false
	case status >= 400 && status < 500:
		return ErrValidation, false
	default:
		// 500 and other 5xx, and anything a client that does not follow redirects cannot
		// use (1xx, 3xx).
		return ErrUnavailable, false
	}
}

// transportRetryable says whether a failure to get an answer at all is worth another
// attempt. The parent ctx is checked by the caller first: its end is never retried.
func transportRetryable(err error) bool {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTemporary || dns.IsTimeout
	}
	return false
}

// safeCode keeps a system's error code fit for logs: short, and only the characters codes
// are made of, since the body it came from is untrusted.
func safeCode(code string) string {
	const maxLen = 64
	if len(code) > maxLen {
		code = code[:maxLen]
	}
	for _, c := range code {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.:", c)) {
			return ""
		}
	}
	return code
}

// ErrorKind names a connector failure for an audit record without its text ("not_found",
// "rate_limited", "timeout", ...); "" when err is none of them.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range []struct {
		err  error
		name string
	}{
		{ErrNotFound, "not_found"}, {ErrConflict, "conflict"},
		{ErrValidation, "validation"}, {ErrUnauthorized, "unauthorized"},
		{ErrRateLimited, "rate_limited"}, {ErrUnavailable, "unavailable"},
		{ErrUnsupported, "unsupported"}, {ErrInvalidConfig, "invalid_config"},
		{context.DeadlineExceeded, "timeout"}, {context.Canceled, "canceled"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}
