package settings

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// maxBody bounds a settings change.
const maxBody = 64 << 10

// GetHandler is GET /api/settings.
func (s *Service) GetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := s.Get(r.Context(), caller(r).TenantID)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}

// PatchHandler is PATCH /api/settings.
func (s *Service) PatchHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Patch
		if !decode(w, r, &p) {
			return
		}
		v, err := s.Apply(r.Context(), caller(r), p)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}

// OverridesHandler is PUT /api/settings/manifest-overrides: {"entries": [...]}.
func (s *Service) OverridesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Entries []OverrideView `json:"entries"`
		}
		if !decode(w, r, &body) {
			return
		}
		if body.Entries == nil {
			body.Entries = []OverrideView{}
		}
		v, err := s.PutOverrides(r.Context(), caller(r), body.Entries)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}

// RotateHandler is POST /api/settings/webhook-secret/rotate: {"purpose": "ingest"}
// (default ingest). The answer holds the new secret: the only time it is shown.
func (s *Service) RotateHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := struct {
			Purpose tenant.Purpose `json:"purpose"`
		}{Purpose: tenant.PurposeIngest}
		if r.ContentLength != 0 && !decode(w, r, &body) {
			return
		}
		rot, err := s.Rotate(r.Context(), caller(r), body.Purpose, tenant.DefaultRotationGrace)
		if err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		httpapi.WriteJSON(w, http.StatusOK, rot)
	})
}

func caller(r *http.Request) identity.Identity {
	id, _ := identity.FromContext(r.Context())
	return id
}

// decode reads one JSON object, refusing unknown fields so a misspelt key is an error,
// not a setting silently left as it was.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json",
			"The body is not the expected JSON object (unknown fields are refused)."))
		return false
	}
	return true
}

func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var inv *InvalidError
	var scope *ScopeError
	switch {
	case errors.As(err, &scope):
		p := httpapi.NewProblem(http.StatusForbidden, "outside_embedded_scope",
			"An embedded session may change the feature switches only; nothing was changed. See errors.")
		for _, f := range scope.Fields {
			p.Errors = append(p.Errors, httpapi.FieldError{Field: f, Message: "is changed by a signed-in admin, not from the host ERP"})
		}
		httpapi.WriteProblem(w, r, p)
	case errors.As(err, &inv):
		p := httpapi.NewProblem(http.StatusBadRequest, "validation_failed", "The change is invalid; nothing was changed. See errors.")
		for _, f := range inv.Fields {
			p.Errors = append(p.Errors, httpapi.FieldError{Field: f.Field, Message: f.Message})
		}
		httpapi.WriteProblem(w, r, p)
	case errors.Is(err, tenant.ErrNotFound):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "not_found", "The tenant does not exist."))
	case errors.Is(err, tenant.ErrConflict):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed",
			"The settings changed while this change was applied; nothing was changed. Read them again and retry."))
	default:
		httpapi.WriteUnavailable(w, r, err, "Settings cannot be changed right now; nothing was changed. Retry shortly.")
	}
}
