package syncerror

// The HTTP helpers every route of the feature shares: who is asking, the body as JSON
// (bounded), and the feature's problem answers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Who is the caller of r, or false when it answered 401: a route serves only a signed-in,
// attributable caller.
func Who(w http.ResponseWriter, r *http.Request) (identity.Identity, bool) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, "unauthenticated", "Sign in to use the operator queue."))
		return identity.Identity{}, false
	}
	return id, true
}

// NotFound answers 404 for a row that is not there (or is another tenant's).
func NotFound(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "not_found", "No such sync error."))
}

const maxDecisionBody = 64 << 10

// ReadJSON decodes the body into v, or answers 400 malformed_json and returns false; an
// optional body may be empty.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	body, err := ReadLimited(w, r)
	if err != nil {
		return false
	}
	if optional && len(strings.TrimSpace(string(body))) == 0 {
		return true
	}
	if isNull(body) {
		writeNotObject(w, r)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json", "The body is not valid JSON for this operation."))
		return false
	}
	return true
}

// ReadStrictJSON is ReadJSON for a body whose members are all named by its schema
// (additionalProperties: false): an unknown member is refused, never ignored.
func ReadStrictJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := ReadLimited(w, r)
	if err != nil {
		return false
	}
	if isNull(body) {
		writeNotObject(w, r)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "unknown_field",
				"The body has a member this operation does not take: "+name+"."))
			return false
		}
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json", "The body is not valid JSON for this operation."))
		return false
	}
	return true
}

// writeNotObject refuses a body that is JSON null (isNull), which encoding/json decodes
// into a struct as nothing at all: an approve sent "null" was taken for one with no body
// (FuzzOpenAPI).
func writeNotObject(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json",
		"The body is JSON null; send a JSON object, or no body where the operation's body is optional."))
}

// ReadLimited reads the body up to the decisions' bound, or answers 413 or 400 and fails.
func ReadLimited(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDecisionBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large", "The body exceeds 64 KiB."))
		} else {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "body_unreadable", "The request body could not be read."))
		}
		return nil, err
	}
	return body, nil
}

// WriteFieldError answers 400 validation_failed naming field and what is wrong with it.
func WriteFieldError(w http.ResponseWriter, r *http.Request, field, msg string) {
	p := httpapi.NewProblem(http.StatusBadRequest, "validation_failed", "The body has invalid fields; see errors.")
	p.Errors = []httpapi.FieldError{{Field: field, Message: msg}}
	httpapi.WriteProblem(w, r, p)
}
