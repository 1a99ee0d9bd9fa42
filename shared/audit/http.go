package audit

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Query limits of GET /api/audit.
const (
	DefaultWindow = 24 * time.Hour
	MaxWindow     = 31 * 24 * time.Hour
	DefaultLimit  = 50
	MaxLimit      = 200
)

// Handler serves GET /api/audit?from=&to=&actionType=&limit=&cursor= for the caller's
// tenant. Authentication and the approver role are checked by the middleware in front.
type Handler struct {
	Store Store
	Now   func() time.Time
}

// Window is the time range a response covers.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ListResponse is the envelope of GET /api/audit.
type ListResponse struct {
	Items      []Record `json:"items"`
	Window     Window   `json:"window"`
	NextCursor *string  `json:"nextCursor"`
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
	page, err := h.Store.Query(r.Context(), q)
	if errors.Is(err, ErrBadCursor) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "invalid_cursor", "The cursor is not from a previous page of this query."))
		return
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The audit log is unavailable; retry shortly.")
		return
	}
	resp := ListResponse{Items: page.Records, Window: Window{From: q.From, To: q.To}}
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
			t, err := time.Parse(time.RFC3339Nano, s)
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
