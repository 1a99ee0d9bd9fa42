package flow

import (
	"net/http"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// XRefList is the answer of GET /api/flows/xrefs.
type XRefList struct {
	Items []XRef `json:"items"`
}

// XRefsHandler is GET /api/flows/xrefs?system=&entity=&id=: a record's links to its
// counterparts in other systems, one per target entity (linked, or pending while a run
// finds or creates the counterpart).
func (s *Service) XRefsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		src := Ref{System: connector.System(q.Get("system")), Entity: q.Get("entity"), ID: q.Get("id")}
		var errs []httpapi.FieldError
		if !src.System.Known() {
			errs = append(errs, httpapi.FieldError{Field: "system", Message: "must be one of " + connector.SystemNames()})
		}
		if !validName(src.Entity) {
			errs = append(errs, httpapi.FieldError{Field: "entity", Message: "must be 1 to 128 visible characters"})
		}
		if !validRecordID(src.ID) {
			errs = append(errs, httpapi.FieldError{Field: "id", Message: "must be 1 to 256 characters without control characters"})
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The record is not named correctly; see errors.", errs)
			return
		}
		if s.Exec == nil || s.Exec.XRefs == nil {
			httpapi.WriteUnavailable(w, r, errXRef, "The cross-reference cannot be read right now. Retry shortly.")
			return
		}
		items, err := s.Exec.XRefs.XRefsOf(r.Context(), caller(r).TenantID, src)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The cross-reference cannot be read right now. Retry shortly.")
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, XRefList{Items: items})
	})
}
