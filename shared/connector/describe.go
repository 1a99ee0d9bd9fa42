package connector

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"
)

// Failure is a connector error as an admin is shown it: its kind, the vendor's status and
// error code (the vendor's own words for what failed), and what that means here. Like
// Error's text it never holds an answer's body, a field value or a credential.
type Failure struct {
	Kind    string `json:"kind"`
	Status  int    `json:"status,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

var failureMessages = map[string]string{
	"unauthorized":   "The system refused the credential: it is wrong, expired, or lacks the rights for this read.",
	"not_found":      "The system has no such resource: check the base URL (for Business Central, the company in it).",
	"validation":     "The system refused the request as invalid.",
	"conflict":       "The system reported a conflicting change.",
	"rate_limited":   "The system asked to slow down; try again in a minute.",
	"unavailable":    "The system could not be reached or failed.",
	"unsupported":    "This system does not offer this operation.",
	"invalid_config": "The connector's configuration cannot be used.",
	"timeout":        "The system did not answer in time.",
	"canceled":       "The check was cancelled.",
	"not_configured": "The tenant has no connector for this system.",
}

// Describe turns a connector call's error into a Failure; the zero Failure for nil.
func Describe(err error) Failure {
	if err == nil {
		return Failure{}
	}
	kind := ErrorKind(err)
	if errors.Is(err, ErrNotConfigured) {
		kind = "not_configured"
	}
	if kind == "" {
		kind = "unavailable"
	}
	f := Failure{Kind: kind, Message: failureMessages[kind]}
	var e *Error
	if errors.As(err, &e) {
		f.Status, f.Code = e.Status, e.Code
		if why := causeText(e); why != "" {
			f.Message += " " + why
		}
	} else if kind == "invalid_config" {
		// New's and Registry's own refusals name the setting, never the credential.
		f.Message += " (" + err.Error() + ")"
	}
	return f
}

// causeText names a transport failure's category, or repeats the client's own refusal
// (which never quotes a value); "" for anything else, whose text is not vetted.
func causeText(e *Error) string {
	c := e.Cause
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var recordErr tls.RecordHeaderError
	switch {
	case c == nil:
		return ""
	case errors.Is(e.Err, ErrInvalidConfig) || errors.Is(e.Err, ErrValidation) && e.Status == 0:
		return "(" + c.Error() + ")"
	case errors.Is(c, context.DeadlineExceeded) || isTimeout(c):
		return "(timed out)"
	case errors.Is(c, syscall.ECONNREFUSED):
		return "(connection refused)"
	case errors.As(c, &dns):
		return "(the host name does not resolve)"
	case errors.As(c, &unknownCA), errors.As(c, &hostname), errors.As(c, &recordErr):
		return "(TLS: the certificate or protocol is not accepted)"
	case errors.Is(c, errResponseTooLarge):
		return "(the answer is larger than the client reads)"
	case errors.Is(c, errMalformedResponse):
		return "(the answer is not in the vendor's format: is the base URL the vendor's API?)"
	}
	return ""
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
