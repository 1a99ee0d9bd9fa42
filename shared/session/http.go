package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Problem codes of the embedded routes (documented in the README's API reference). Host
// signature failures answer hostauth's codes; token failures answer identity's
// invalid_token.
const (
	CodeValidationFailed = "validation_failed"
	CodeMalformedJSON    = "malformed_json"
	CodeRoleNotAllowed   = "role_not_allowed"
	CodeRequestReplayed  = "request_replayed"
	CodeUnknownModule    = "unknown_module"
	CodeModuleNotGranted = "module_not_granted"
	CodeWrongModule      = "wrong_module"
)

// MaxBodyBytes bounds the bodies of the embedded routes.
const MaxBodyBytes = 4 << 10

var errMalformed = errors.New("session: body is not a single JSON object")

// HostBootstrapHandler serves POST /api/embedded/host/bootstrap: signed by the host with
// the tenant's embedded secret (X-Tenant-Id, Standard Webhooks headers), body
// {"userId", "hostAccountId", "roles", "modules"?}; 201 {"sessionId", "serviceToken", "expiresAt"}.
// Signature failures answer as the webhook does (401, nothing about the tenant); 400
// validation_failed or malformed_json; 403 role_not_allowed; 409 request_replayed for a
// webhook-id already used (both audited as denied). Nothing else is stored on any error.
func (s *Service) HostBootstrapHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A tenant whose cached configuration allows no roles is read again, so a tenant
		// that has just opted in is served at once.
		cfg, body, ok := s.Auth.ReadSigned(w, r, MaxBodyBytes, func(c tenant.Config) bool { return len(AllowedRoles(c)) > 0 })
		if !ok {
			return
		}
		var req BootstrapRequest
		if err := decodeObject(body, map[string]field{
			"userId":        {&req.UserID, "a string"},
			"hostAccountId": {&req.HostAccountID, "a string"},
			"roles":         {&req.Roles, "an array of strings"},
			"modules":       {&req.Modules, "an array of strings"},
		}); err != nil {
			writeError(w, r, err)
			return
		}
		issued, err := s.Bootstrap(r.Context(), cfg, r.Header.Get(webhook.HeaderID), req)
		if err != nil {
			writeError(w, r, err)
			return
		}
		noStore(w)
		httpapi.WriteJSON(w, http.StatusCreated, issued)
	})
}

// ContextBootstrapHandler serves POST /api/embedded/context/bootstrap: the sidecar's
// "Authorization: Bearer <service token>", body {"module"}; 201 {"embeddedContextId",
// "module", "expiresAt"}. 401 invalid_token for a missing, malformed, unknown, revoked or
// expired token (checked before the body); 400 unknown_module, validation_failed or
// malformed_json; 415 and 413 for the wrong content type or size.
func (s *Service) ContextBootstrapHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := bearerServiceToken(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		sess, err := s.authenticate(r.Context(), token)
		if err != nil {
			writeError(w, r, err)
			return
		}
		body, ok := readJSONBody(w, r)
		if !ok {
			return
		}
		var in struct{ Module *string }
		if err := decodeObject(body, map[string]field{"module": {&in.Module, "a string"}}); err != nil {
			writeError(w, r, err)
			return
		}
		if in.Module == nil {
			writeError(w, r, &ValidationError{Fields: []httpapi.FieldError{{Field: "module", Message: "required; one of " + strings.Join(Modules, ", ")}}})
			return
		}
		opened, err := s.openContext(r.Context(), sess, *in.Module)
		if err != nil {
			writeError(w, r, err)
			return
		}
		noStore(w)
		httpapi.WriteJSON(w, http.StatusCreated, opened)
	})
}

// TeardownHandler serves DELETE /api/embedded/session with the service token: it revokes
// the token and its contexts and answers 204. Teardown is not idempotent at the HTTP level:
// a second teardown presents a revoked token and gets 401 invalid_token, exactly like any
// other use of it, since a revoked token is indistinguishable from one never issued (none
// is kept). A sidecar that gets 401 on teardown may treat the session as closed.
func (s *Service) TeardownHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := bearerServiceToken(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if err := s.Teardown(r.Context(), token); err != nil {
			writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// RequireModule lets an embedded-session caller (the req.user principal, as resolved by
// identity.Authenticate) through only when its context is bound to module; otherwise 403
// wrong_module. A route that belongs to no module (module "") refuses every embedded
// caller. JWT callers (req.auth) are not bound to modules and always pass, as does an
// anonymous request, which identity.ValidateGuestContext refuses on its own. Chain it after
// Authenticate:
//
//	identity.Authenticate(v, svc, identity.ValidateGuestContext(session.RequireModule(route.Module, identity.RequireApproverRole(h))))
func RequireModule(module string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if user := identity.User(ctx); identity.Auth(ctx) == nil && user != nil && (module == "" || user.Module != module) {
			detail := "This embedded context is bound to module " + user.Module + "; this route belongs to no module open to embedded sessions."
			if module != "" {
				detail = "This embedded context is bound to module " + user.Module + "; open a context for module " + module + " to call this route."
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeWrongModule, detail))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// errNoToken is a missing or non-Bearer Authorization header on a service-token route.
var errNoToken = errors.New("session: no bearer service token")

// bearerServiceToken returns the service token of a single "Authorization: Bearer sat_…"
// header (the scheme is case-insensitive, RFC 6750 §2.1).
func bearerServiceToken(r *http.Request) (string, error) {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return "", errNoToken
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(token, identity.ServiceTokenPrefix) {
		return "", errNoToken
	}
	return token, nil
}

// readJSONBody reads a JSON body of at most MaxBodyBytes, answering 415 or 413 itself.
func readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"Send the body as Content-Type: application/json."))
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusRequestEntityTooLarge, "payload_too_large",
				"The body exceeds the route's limit of 4 KiB."))
		} else {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "body_unreadable", "The request body could not be read."))
		}
		return nil, false
	}
	return body, true
}

// field is one member of a JSON object body: where it decodes to, and what it must be.
type field struct {
	dst  any
	want string
}

// decodeObject decodes body, one JSON object, into fields by member name. Unknown members
// and members of the wrong type are field errors (*ValidationError): a typo in a request
// that mints credentials should not pass silently. Anything that is not one JSON object is
// errMalformed.
func decodeObject(body []byte, fields map[string]field) error {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return errMalformed
	}
	if _, err := dec.Token(); err != io.EOF {
		return errMalformed
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	var bad []httpapi.FieldError
	for _, name := range names {
		f, ok := fields[name]
		if !ok {
			bad = append(bad, httpapi.FieldError{Field: name, Message: "unknown field"})
			continue
		}
		if err := json.Unmarshal(raw[name], f.dst); err != nil {
			bad = append(bad, httpapi.FieldError{Field: name, Message: "must be " + f.want})
		}
	}
	if len(bad) > 0 {
		return &ValidationError{Fields: bad}
	}
	return nil
}

// noStore keeps a credential-bearing response out of every cache (RFC 9111 §5.2.2.5).
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// writeError maps the package's errors to problems, in one place. Store and audit failures
// are 503 with the error in the log only.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		ve  *ValidationError
		rna *RolesNotAllowedError
	)
	switch {
	case errors.As(err, &ve):
		p := httpapi.NewProblem(http.StatusBadRequest, CodeValidationFailed, "The request body has invalid fields; see errors.")
		p.Errors = ve.Fields
		httpapi.WriteProblem(w, r, p)
	case errors.Is(err, errMalformed):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeMalformedJSON, "The body is not a single JSON object."))
	case errors.As(err, &rna):
		allowed := "none (the tenant setting " + SettingAllowedRoles + " is empty)"
		if len(rna.Allowed) > 0 {
			allowed = strings.Join(rna.Allowed, ", ")
		}
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeRoleNotAllowed,
			"The tenant does not allow the role(s) "+strings.Join(rna.Roles, ", ")+" in embedded sessions; allowed: "+allowed+"."))
	case errors.Is(err, ErrReplayed):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, CodeRequestReplayed,
			"This webhook-id was already used for a bootstrap; sign each bootstrap with a fresh webhook-id."))
	case errors.Is(err, ErrModuleNotGranted):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeModuleNotGranted,
			"The host bootstrap of this session did not grant this module."))
	case errors.Is(err, ErrUnknownModule):
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeUnknownModule,
			"module must be one of "+strings.Join(Modules, ", ")+"."))
	case errors.Is(err, errNoToken):
		w.Header().Set("WWW-Authenticate", "Bearer")
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, identity.CodeInvalidToken,
			"Send the session's service token as Authorization: Bearer sat_…."))
	case errors.Is(err, identity.ErrTokenExpired):
		httpapi.Logger(r.Context()).Info("service token refused", "reason", err)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="The credential has expired"`)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, identity.CodeInvalidToken,
			"The service token has expired; bootstrap a new session."))
	case errors.Is(err, identity.ErrTokenInvalid):
		httpapi.Logger(r.Context()).Info("service token refused", "reason", err)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, identity.CodeInvalidToken,
			"The service token is unknown, revoked or malformed; bootstrap a new session."))
	default:
		httpapi.WriteUnavailable(w, r, err, "Embedded sessions are unavailable right now; nothing was issued or changed. Retry shortly.")
	}
}
