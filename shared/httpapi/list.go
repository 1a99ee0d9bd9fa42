package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ListParams is the query of a paged listing: ?status=&limit=&cursor=.
type ListParams struct {
	Status string
	Limit  int
	Cursor string
}

// ListSpec says what a listing accepts.
type ListSpec struct {
	Statuses       []string // allowed statuses; the first is the default
	DefaultLimit   int
	MaxLimit       int
	StatusOptional bool // when true, an absent status stays "" (all statuses)
}

// ParseList reads a listing's query. On invalid input it has answered 400 invalid_query
// with every field error and returns false.
func ParseList(w http.ResponseWriter, r *http.Request, spec ListSpec) (ListParams, bool) {
	q := r.URL.Query()
	var errs []FieldError
	p := ListParams{Status: q.Get("status"), Limit: spec.DefaultLimit, Cursor: QueryCursor(q, &errs)}
	switch {
	case p.Status == "" && !spec.StatusOptional:
		p.Status = spec.Statuses[0]
	case p.Status != "" && !slices.Contains(spec.Statuses, p.Status):
		errs = append(errs, FieldError{Field: "status", Message: "must be one of " + strings.Join(spec.Statuses, ", ")})
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > spec.MaxLimit {
			errs = append(errs, FieldError{Field: "limit", Message: "must be a whole number from 1 to " + strconv.Itoa(spec.MaxLimit)})
		}
		p.Limit = n
	}
	if len(errs) > 0 {
		WriteInvalidQuery(w, r, errs)
		return ListParams{}, false
	}
	return p, true
}

// MaxCursorLen bounds a listing's cursor. Every cursor the service issues is far shorter;
// a longer one is refused before a store sees it, so it can never reach DynamoDB as a key
// over its size limit (a 503 instead of the 400 it is).
const MaxCursorLen = 512

// QueryCursor reads the cursor parameter of q, appending a field error to errs when it is
// longer than MaxCursorLen.
func QueryCursor(q url.Values, errs *[]FieldError) string {
	c := q.Get("cursor")
	if len(c) > MaxCursorLen {
		*errs = append(*errs, FieldError{Field: "cursor", Message: "is not from a previous page of this listing (too long)"})
		return ""
	}
	return c
}

// WriteInvalidQuery answers 400 invalid_query with the field errors.
func WriteInvalidQuery(w http.ResponseWriter, r *http.Request, errs []FieldError) {
	p := NewProblem(http.StatusBadRequest, "invalid_query", "The query parameters are invalid; see errors.")
	p.Errors = errs
	WriteProblem(w, r, p)
}

// WriteInvalidBody answers 400 validation_failed with the field errors; detail says what
// was invalid ("" for the general sentence).
func WriteInvalidBody(w http.ResponseWriter, r *http.Request, detail string, errs []FieldError) {
	if detail == "" {
		detail = "The body has invalid fields; see errors."
	}
	p := NewProblem(http.StatusBadRequest, "validation_failed", detail)
	p.Errors = errs
	WriteProblem(w, r, p)
}

// WriteBadCursor answers 400 invalid_cursor.
func WriteBadCursor(w http.ResponseWriter, r *http.Request) {
	WriteProblem(w, r, NewProblem(http.StatusBadRequest, "invalid_cursor", "The cursor is not from a previous page of this listing."))
}

// WriteList answers 200 {"items": items, "nextCursor": next or null}.
func WriteList(w http.ResponseWriter, items any, next string) {
	var cursor *string
	if next != "" {
		cursor = &next
	}
	WriteJSON(w, http.StatusOK, map[string]any{"items": items, "nextCursor": cursor})
}
