package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"

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
		raw, ok := readBody(w, r)
		if !ok || !decode(w, r, &p) {
			return
		}
		if len(p.Settings) == 0 && len(p.Connectors) == 0 {
			// null, {} or empty maps change nothing: refused, so no default is taken for one.
			writeError(w, r, &InvalidError{Fields: []FieldError{{"settings", "name at least one setting or connector to change; nothing was changed"}}})
			return
		}
		// A null setting would decode as "" and clear it; a null connector removes it, as documented.
		if nulls := nullSettings(raw); len(nulls) > 0 {
			writeError(w, r, &InvalidError{Fields: nulls})
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
		// The list replaces every override, so it is stated: an empty list clears them, and
		// a missing or null one is refused, never read as empty.
		if !decodeRequired(w, r, &body, "entries") {
			return
		}
		v, err := s.PutOverrides(r.Context(), caller(r), body.Entries)
		if err != nil {
			writeError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, v)
	})
}

// RotateHandler is POST /api/settings/webhook-secret/rotate: {"purpose": "ingest"}. The
// purpose is required: a rotation retires a live secret, so no body, null or a missing
// purpose never rotates one by default. The answer holds the new secret: the only time it
// is shown.
func (s *Service) RotateHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Purpose tenant.Purpose `json:"purpose"`
		}
		if !decodeRequired(w, r, &body, "purpose") {
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

// decodeRequired is decode for a body whose members are all required: no body, null, or
// a required member missing or null is 400 validation_failed naming each such member, and
// a body that is no JSON object (an array, a string) is malformed_json.
func decodeRequired(w http.ResponseWriter, r *http.Request, v any, required ...string) bool {
	raw, ok := readBody(w, r)
	if !ok {
		return false
	}
	var members map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if json.Unmarshal(t, &members) != nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json",
				"The body is not the expected JSON object (unknown fields are refused)."))
			return false
		}
	}
	var inv InvalidError
	for _, f := range required {
		if m, ok := members[f]; !ok || bytes.Equal(bytes.TrimSpace(m), []byte("null")) {
			inv.Fields = append(inv.Fields, FieldError{f, "is required (null is no value); nothing was changed"})
		}
	}
	if len(inv.Fields) > 0 {
		writeError(w, r, &inv)
		return false
	}
	return decode(w, r, v)
}

// readBody reads the body (up to maxBody) and puts it back for decode.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "body_unreadable", "The request body could not be read."))
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return raw, true
}

// nullSettings names the settings a patch sets to null.
func nullSettings(raw []byte) []FieldError {
	var p struct {
		Settings map[string]json.RawMessage `json:"settings"`
	}
	_ = json.Unmarshal(raw, &p)
	var out []FieldError
	for _, k := range slices.Sorted(maps.Keys(p.Settings)) {
		if bytes.Equal(bytes.TrimSpace(p.Settings[k]), []byte("null")) {
			out = append(out, FieldError{"settings." + k, "is null: give the value (a string)"})
		}
	}
	return out
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
