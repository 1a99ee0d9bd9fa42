package audit

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Query limits of GET /api/audit.
const (
	DefaultWindow = 24 * time.Hour
	MaxWindow     = 31 * 24 * time.Hour
	DefaultLimit  = 50
	MaxLimit      = 200
	// MaxActorLen bounds the actor filter, in characters: far above any actor stored.
	MaxActorLen = 256
)

// Handler serves GET /api/audit?from=&to=&actionType=&actor=&limit=&cursor= for the
// caller's tenant. Authentication and the approver role are checked by the middleware in
// front.
type Handler struct {
	Store Store
	// Log turns an actor filter into the stored actor it must match (Log.ActorFilter);
	// without it the filter is matched as given.
	Log *Log
	Now func() time.Time
}

// Window is the time range a response covers.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ListResponse is the envelope of GET /api/audit.
type ListResponse struct {
	Items  []Record `json:"items"`
	Window Window   `json:"window"`
	// Actor is the stored actor the actor filter matched, as records show it: masked and
	// pseudonymised when the filter named a masked person.
	Actor      string  `json:"actor,omitempty"`
	NextCursor *string `json:"nextCursor"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, "unauthenticated", "Sign in to read the audit log."))
		return
	}
	q, fieldErrs := h.parse(r)
	if len(fieldErrs) > 0 {
		p := httpapi.NewProblem(http.StatusBadRequest, "invalid_query", "The query parameters are invalid; see errors.")
		p.Errors = fieldErrs
		httpapi.WriteProblem(w, r, p)
		return
	}
	q.TenantID = id.TenantID
	if !h.resolveActor(w, r, &q) {
		return
	}
	page, err := h.Store.Query(r.Context(), q)
	if errors.Is(err, ErrBadCursor) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "invalid_cursor", "The cursor is not from a previous page of this query."))
		return
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The audit log is unavailable; retry shortly.")
		return
	}
	resp := ListResponse{Items: page.Records, Window: Window{From: q.From, To: q.To}, Actor: q.Actor}
	if resp.Items == nil {
		resp.Items = []Record{}
	}
	if page.NextCursor != "" {
		resp.NextCursor = &page.NextCursor
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
}

func (h *Handler) parse(r *http.Request) (Query, []httpapi.FieldError) {
	v := r.URL.Query()
	var errs []httpapi.FieldError
	bad := func(field, msg string) { errs = append(errs, httpapi.FieldError{Field: field, Message: msg}) }
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	q := Query{To: now().UTC(), Limit: DefaultLimit, Cursor: httpapi.QueryCursor(v, &errs), ActionType: v.Get("actionType")}
	parseTime := func(name string, dst *time.Time) {
		if s := v.Get(name); s != "" {
			t, err := httpapi.ParseTime(s)
			if err != nil {
				bad(name, "must be an RFC 3339 date-time")
				return
			}
			*dst = t.UTC()
		}
	}
	parseTime("to", &q.To)
	q.From = q.To.Add(-DefaultWindow)
	parseTime("from", &q.From)
	if !q.From.Before(q.To) {
		bad("from", "must be before to")
	} else if q.To.Sub(q.From) > MaxWindow {
		bad("from", "the window may span at most 31 days")
	}
	if q.ActionType != "" && !slices.Contains(ActionTypes, q.ActionType) {
		bad("actionType", "must be one of "+strings.Join(ActionTypes, ", "))
	}
	q.Actor = strings.TrimSpace(v.Get("actor"))
	if utf8.RuneCountInString(q.Actor) > MaxActorLen || strings.IndexFunc(q.Actor, unicode.IsControl) >= 0 {
		bad("actor", "must be at most 256 characters, without control characters")
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxLimit {
			bad("limit", "must be a whole number from 1 to 200")
		} else {
			q.Limit = n
		}
	}
	return q, errs
}

// resolveActor replaces q's actor filter by the stored actor it matches, answering the
// request itself when it cannot. No answer repeats the filter: it may name a person.
func (h *Handler) resolveActor(w http.ResponseWriter, r *http.Request, q *Query) bool {
	if q.Actor == "" || h.Log == nil {
		return true
	}
	stored, err := h.Log.ActorFilter(r.Context(), q.TenantID, q.Actor)
	switch {
	case errors.Is(err, ErrActorNotTraceable):
		httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "actor", Message: "names a person the log stores " +
			"masked without a pseudonym, so their records cannot be told apart; filter by the actor as the log shows it"}})
		return false
	case err != nil:
		httpapi.WriteUnavailable(w, r, err, "The actor filter cannot be applied just now; retry shortly.")
		return false
	}
	q.Actor = stored
	return true
}
