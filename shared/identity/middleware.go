package identity

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// ServiceTokenPrefix starts every embedded-session service token, which is how a bearer
// credential is told apart from a JWT (a JWT always starts with "eyJ").
const ServiceTokenPrefix = "sat_"

// HeaderEmbeddedContextID carries the embeddedContextId of calls made inside an embedded
// session, beside the service token.
const HeaderEmbeddedContextID = "X-Embedded-Context-Id"

// Problem codes of this package (documented in the README's API reference).
const (
	CodeInvalidToken            = "invalid_token"
	CodeEmbeddedContextRequired = "embedded_context_required"
	CodeIdentityUnavailable     = "identity_unavailable"
	CodeUnauthenticated         = "unauthenticated"
	CodeForbidden               = "forbidden"
)

// TokenVerifier verifies a bearer JWT; *JWTVerifier is the implementation.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (Principal, error)
}

var _ TokenVerifier = (*JWTVerifier)(nil)

// SessionResolver resolves an embedded session's service token and context id to the
// session's principal. It returns an error wrapping ErrTokenExpired for an expired token or
// context and ErrTokenInvalid for an unknown, revoked or mismatched one; any other error is
// taken as the session store being unavailable (503).
type SessionResolver interface {
	Resolve(ctx context.Context, serviceToken, contextID string) (Principal, error)
}

// Authenticate establishes who is calling and passes the request on:
//
//   - no Authorization header: passed on unauthenticated (ValidateGuestContext refuses it
//     where an identity is required);
//   - "Bearer sat_…" with X-Embedded-Context-Id: an embedded session, resolved by sessions
//     into the user principal (WithUser);
//   - any other "Bearer …": a JWT, verified by v into the auth principal (WithAuth).
//
// A credential that is present but not accepted is answered 401 and never passed on as
// anonymous; an issuer or session store that cannot be reached is answered 503. sessions
// may be nil, in which case service tokens are refused.
//
// Routes that authenticate the service token themselves (the embedded context bootstrap
// and session teardown, which have no context id yet) must not be wrapped in Authenticate.
func Authenticate(v TokenVerifier, sessions SessionResolver, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values := r.Header.Values("Authorization")
		if len(values) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		token, ok := bearerToken(values)
		if !ok {
			writeMalformed(w, r, "Send the credential as Authorization: Bearer <token>.")
			return
		}
		ctx := r.Context()
		if strings.HasPrefix(token, ServiceTokenPrefix) {
			contextID := strings.TrimSpace(r.Header.Get(HeaderEmbeddedContextID))
			switch {
			case sessions == nil:
				refuse(w, r, ErrTokenInvalid, "Service tokens are not accepted on this route.")
				return
			case contextID == "":
				p := httpapi.NewProblem(http.StatusUnauthorized, CodeEmbeddedContextRequired,
					"A service token must be sent with the "+HeaderEmbeddedContextID+" header of the embedded context.")
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_request"`)
				httpapi.WriteProblem(w, r, p)
				return
			}
			principal, err := sessions.Resolve(ctx, token, contextID)
			if err != nil {
				refuse(w, r, err, "The embedded session or context is unknown, revoked or expired; bootstrap a new one.")
				return
			}
			next.ServeHTTP(w, r.WithContext(WithUser(ctx, principal)))
			return
		}
		if v == nil {
			refuse(w, r, errors.New("identity: no token verifier configured"), "")
			return
		}
		principal, err := v.Verify(ctx, token)
		if err != nil {
			refuse(w, r, err, "The bearer token is not valid for this service.")
			return
		}
		next.ServeHTTP(w, r.WithContext(WithAuth(ctx, principal)))
	})
}

// bearerToken extracts the token of a single "Bearer <token>" header (RFC 6750 §2.1; the
// scheme is case-insensitive).
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

func writeMalformed(w http.ResponseWriter, r *http.Request, detail string) {
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_request"`)
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, CodeInvalidToken, detail))
}

// refuse answers a credential that was not accepted. The error goes to the log (it never
// holds the credential); the client gets a fixed detail.
func refuse(w http.ResponseWriter, r *http.Request, err error, detail string) {
	log := httpapi.Logger(r.Context())
	switch {
	case errors.Is(err, ErrTokenExpired):
		log.Info("credential refused", "reason", err)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="The credential has expired"`)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, CodeInvalidToken,
			"The credential has expired; obtain a new one."))
	case errors.Is(err, ErrTokenInvalid):
		log.Info("credential refused", "reason", err)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, CodeInvalidToken, detail))
	default:
		// Fail closed: a credential that cannot be checked is not let through.
		log.Error("identity unavailable", "error", err)
		p := httpapi.NewProblem(http.StatusServiceUnavailable, CodeIdentityUnavailable,
			"The service cannot check credentials right now; retry shortly.")
		p.RetryAfter = 5 * time.Second
		httpapi.WriteProblem(w, r, p)
	}
}

// ValidateGuestContext is the spec's validateGuestContext: it lets the request through
// only with an identity (a verified JWT or a resolved embedded context, as established by
// Authenticate) that names a tenant; otherwise 401 unauthenticated.
//
// Chain it after Authenticate and before RequireRole / RequireApproverRole:
//
//	Authenticate(v, sessions, ValidateGuestContext(RequireApproverRole(h)))
func ValidateGuestContext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := FromContext(r.Context()); !ok || id.TenantID == "" {
			writeUnauthenticated(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeUnauthenticated(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, CodeUnauthenticated,
		"Sign in: send Authorization: Bearer <token> (or a service token with "+HeaderEmbeddedContextID+")."))
}

// RequireRole lets the request through only if its identity holds role (admin holds every
// role); otherwise 403 forbidden naming the role. It must run after ValidateGuestContext,
// which answers the anonymous caller with 401; on its own it still refuses one, with 401.
func RequireRole(role string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := FromContext(r.Context())
		if !ok {
			writeUnauthenticated(w, r)
			return
		}
		if !id.HasRole(role) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, CodeForbidden,
				"This action requires the "+role+" role."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RequireApproverRole is the spec's requireApproverRole: RequireRole(RoleApprover). Chain
// it after ValidateGuestContext.
func RequireApproverRole(next http.Handler) http.Handler {
	return RequireRole(RoleApprover, next)
}
