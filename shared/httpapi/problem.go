// Package httpapi holds what every HTTP handler of the service shares: RFC 9457 problem
// responses with stable codes, correlation ids, request logging, and JSON bodies.
package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// Problem is an RFC 9457 problem document. Code is the stable, documented identifier a
// client branches on; Detail is for people. Internal error text never goes in here.
type Problem struct {
	Type          string       `json:"type"`
	Title         string       `json:"title"`
	Status        int          `json:"status"`
	Detail        string       `json:"detail,omitempty"`
	Code          string       `json:"code"`
	CorrelationID string       `json:"correlationId,omitempty"`
	Errors        []FieldError `json:"errors,omitempty"`
	// Target, on a failure of another system, is that system's own answer: what an operator
	// needs to tell a failure worth retrying from one that retrying cannot fix.
	Target *TargetFailure `json:"target,omitempty"`
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter time.Duration `json:"-"`
}

// TargetFailure is how a target system refused or failed a write: its name, the HTTP
// status and the system's own error code (never its message, which can echo the data), and
// whether sending the same write again can succeed.
type TargetFailure struct {
	System    string `json:"system"`
	Status    int    `json:"status,omitempty"`
	Code      string `json:"code,omitempty"`
	Retryable bool   `json:"retryable"`
}

// FieldError names one invalid field of a request body.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ProblemTypeBase prefixes every problem type; the README's API reference documents each
// code under this base.
const ProblemTypeBase = "https://syncassist.dev/problems/"

// NewProblem builds a problem with its type derived from code.
func NewProblem(status int, code, detail string) *Problem {
	return &Problem{
		Type:   ProblemTypeBase + code,
		Title:  http.StatusText(status),
		Status: status,
		Code:   code,
		Detail: detail,
	}
}

// Error lets a *Problem travel as an error.
func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

// WriteProblem sends p with the request's correlation id.
func WriteProblem(w http.ResponseWriter, r *http.Request, p *Problem) {
	p.CorrelationID = CorrelationID(r.Context())
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(p.RetryAfter/time.Second)))
	}
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// WriteInternal logs err with the correlation id and answers a bare 500.
func WriteInternal(w http.ResponseWriter, r *http.Request, err error) {
	Logger(r.Context()).Error("internal error", "error", err)
	WriteProblem(w, r, NewProblem(http.StatusInternalServerError, "internal_error",
		"The service failed to handle the request; quote the correlation id when reporting it."))
}

// WriteUnavailable logs err and answers 503 with Retry-After, for failures of a dependency
// that a client should simply retry.
func WriteUnavailable(w http.ResponseWriter, r *http.Request, err error, detail string) {
	Logger(r.Context()).Error("dependency unavailable", "error", err)
	p := NewProblem(http.StatusServiceUnavailable, "temporarily_unavailable", detail)
	p.RetryAfter = 5 * time.Second
	WriteProblem(w, r, p)
}

// WriteJSON sends v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Logger returns the request's logger (with correlation id), or the default one.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
