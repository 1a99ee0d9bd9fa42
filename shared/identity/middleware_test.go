package identity_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// stubVerifier answers from a fixed table and counts calls.
type stubVerifier struct {
	calls  atomic.Int64
	tokens map[string]identity.Principal
	errs   map[string]error
}

func (s *stubVerifier) Verify(_ context.Context, token string) (identity.Principal, error) {
	s.calls.Add(1)
	if err, ok := s.errs[token]; ok {
		return identity.Principal{}, err
	}
	if p, ok := s.tokens[token]; ok {
		return p, nil
	}
	return identity.Principal{}, fmt.Errorf("%w: unknown test token", identity.ErrTokenInvalid)
}

// stubSessions is the embedded-session hook: one valid token and context.
type stubSessions struct {
	calls atomic.Int64
}

var sessionPrincipal = identity.Principal{Subject: "host-user-9", TenantID: "acme", Roles: []string{identity.RoleOperator},
	SessionID: "sess-1", Module: "governance"}

func (s *stubSessions) Resolve(_ context.Context, token, contextID string) (identity.Principal, error) {
	s.calls.Add(1)
	switch {
	case token == "sat_valid" && contextID == "ctx-1":
		return sessionPrincipal, nil
	case token == "sat_notenant" && contextID == "ctx-1":
		return identity.Principal{Subject: "u", SessionID: "s"}, nil
	case token == "sat_expired":
		return identity.Principal{}, fmt.Errorf("session: %w", identity.ErrTokenExpired)
	case token == "sat_storedown":
		return identity.Principal{}, errors.New("dynamodb: connection reset")
	}
	return identity.Principal{}, fmt.Errorf("session: %w", identity.ErrTokenInvalid)
}

var (
	operator = identity.Principal{Subject: "op-1", TenantID: "acme", Roles: []string{identity.RoleOperator}}
	approver = identity.Principal{Subject: "ap-1", TenantID: "acme", Roles: []string{identity.RoleApprover}}
	admin    = identity.Principal{Subject: "ad-1", TenantID: "acme", Roles: []string{identity.RoleAdmin}}
	noTenant = identity.Principal{Subject: "nt-1", Roles: []string{identity.RoleAdmin}}
)

func newStubVerifier() *stubVerifier {
	return &stubVerifier{
		tokens: map[string]identity.Principal{"jwt-operator": operator, "jwt-approver": approver, "jwt-admin": admin, "jwt-notenant": noTenant},
		errs: map[string]error{
			"jwt-expired": fmt.Errorf("%w: exp has passed", identity.ErrTokenExpired),
			"jwt-down":    fmt.Errorf("%w: fetch JWKS: status 500", identity.ErrJWKSUnavailable),
		},
	}
}

// seen is what the innermost handler observed.
type seen struct {
	Called   bool
	HasAuth  bool
	HasUser  bool
	Derived  bool
	Identity identity.Identity
}

func recordingHandler(out *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out.Called = true
		out.HasAuth = identity.Auth(r.Context()) != nil
		out.HasUser = identity.User(r.Context()) != nil
		out.Identity, out.Derived = identity.FromContext(r.Context())
		w.WriteHeader(http.StatusOK)
	})
}

type request struct {
	auth      []string
	contextID string
}

func do(h http.Handler, req request) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/api/governance/approvals", nil)
	for _, a := range req.auth {
		r.Header.Add("Authorization", a)
	}
	if req.contextID != "" {
		r.Header.Set(identity.HeaderEmbeddedContextID, req.contextID)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func problemOf(t *testing.T, w *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json (body %s)", ct, w.Body)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAuthenticate(t *testing.T) {
	tests := []struct {
		name      string
		req       request
		nilSess   bool
		status    int
		code      string
		wwwAuth   string // expected WWW-Authenticate, when status is 401
		detailHas string
		source    identity.Source // when passed on with an identity
	}{
		{name: "no header passes through unauthenticated", status: 200},
		{name: "valid JWT", req: request{auth: []string{"Bearer jwt-approver"}}, status: 200, source: identity.SourceAuth},
		{name: "scheme is case-insensitive", req: request{auth: []string{"bearer jwt-approver"}}, status: 200, source: identity.SourceAuth},
		{name: "invalid JWT", req: request{auth: []string{"Bearer jwt-forged"}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_token"`},
		{name: "expired JWT", req: request{auth: []string{"Bearer jwt-expired"}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_token", error_description="The credential has expired"`, detailHas: "expired"},
		{name: "issuer keys unavailable", req: request{auth: []string{"Bearer jwt-down"}}, status: 503, code: "identity_unavailable"},
		{name: "Basic scheme", req: request{auth: []string{"Basic dXNlcjpwYXNz"}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_request"`},
		{name: "Bearer without token", req: request{auth: []string{"Bearer"}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_request"`},
		{name: "Bearer with blank token", req: request{auth: []string{"Bearer   "}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_request"`},
		{name: "token with a space", req: request{auth: []string{"Bearer jwt-approver extra"}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_request"`},
		{name: "empty header", req: request{auth: []string{""}}, status: 401, code: "invalid_token",
			wwwAuth: `Bearer error="invalid_request"`},
		{name: "two Authorization headers", req: request{auth: []string{"Bearer jwt-approver", "Bearer jwt-admin"}}, status: 401,
			code: "invalid_token", wwwAuth: `Bearer error="invalid_request"`},

		{name: "service token with context", req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"}, status: 200,
			source: identity.SourceUser},
		{name: "service token without context id", req: request{auth: []string{"Bearer sat_valid"}}, status: 401,
			code: "embedded_context_required", wwwAuth: `Bearer error="invalid_request"`, detailHas: identity.HeaderEmbeddedContextID},
		{name: "service token, sessions not enabled", req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"}, nilSess: true,
			status: 401, code: "invalid_token", wwwAuth: `Bearer error="invalid_token"`},
		{name: "service token with a wrong context", req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-2"}, status: 401,
			code: "invalid_token", wwwAuth: `Bearer error="invalid_token"`},
		{name: "expired session", req: request{auth: []string{"Bearer sat_expired"}, contextID: "ctx-1"}, status: 401,
			code: "invalid_token", detailHas: "expired",
			wwwAuth: `Bearer error="invalid_token", error_description="The credential has expired"`},
		{name: "session store down", req: request{auth: []string{"Bearer sat_storedown"}, contextID: "ctx-1"}, status: 503,
			code: "identity_unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			var sessions identity.SessionResolver = &stubSessions{}
			if tc.nilSess {
				sessions = nil
			}
			w := do(identity.Authenticate(newStubVerifier(), sessions, recordingHandler(&got)), tc.req)
			if w.Code != tc.status {
				t.Fatalf("status = %d, want %d (body %s)", w.Code, tc.status, w.Body)
			}
			if tc.status != 200 {
				if got.Called {
					t.Fatal("the next handler ran for a refused credential")
				}
				p := problemOf(t, w)
				if p.Code != tc.code || p.Status != tc.status {
					t.Fatalf("problem = %+v, want code %q", p, tc.code)
				}
				if !strings.Contains(p.Detail, tc.detailHas) {
					t.Fatalf("detail %q does not mention %q", p.Detail, tc.detailHas)
				}
				if tc.status == 401 {
					if h := w.Header().Get("WWW-Authenticate"); h != tc.wwwAuth {
						t.Fatalf("WWW-Authenticate = %q, want %q", h, tc.wwwAuth)
					}
				}
				if tc.status == 503 && w.Header().Get("Retry-After") == "" {
					t.Fatal("503 without Retry-After")
				}
				for _, leak := range []string{"jwt-", "sat_", "dynamodb", "JWKS"} {
					if strings.Contains(w.Body.String(), leak) {
						t.Fatalf("response leaks %q: %s", leak, w.Body)
					}
				}
				return
			}
			if !got.Called {
				t.Fatal("the next handler did not run")
			}
			if tc.source == "" {
				if got.Derived || got.HasAuth || got.HasUser {
					t.Fatalf("anonymous request carries an identity: %+v", got)
				}
				return
			}
			if !got.Derived || got.Identity.Source != tc.source {
				t.Fatalf("identity = %+v, want source %q", got.Identity, tc.source)
			}
		})
	}
}

func TestAuthenticateRoutesByTokenKind(t *testing.T) {
	v, s := newStubVerifier(), &stubSessions{}
	h := identity.Authenticate(v, s, recordingHandler(&seen{}))
	do(h, request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"})
	do(h, request{auth: []string{"Bearer sat_valid"}})
	if v.calls.Load() != 0 {
		t.Fatal("a service token reached the JWT verifier")
	}
	do(h, request{auth: []string{"Bearer jwt-approver"}, contextID: "ctx-1"})
	if s.calls.Load() != 1 {
		t.Fatalf("session resolver called %d times, want 1 (only for the service token with a context)", s.calls.Load())
	}
}

func TestAuthenticateNilVerifierFailsClosed(t *testing.T) {
	var got seen
	w := do(identity.Authenticate(nil, &stubSessions{}, recordingHandler(&got)), request{auth: []string{"Bearer jwt-approver"}})
	if w.Code != http.StatusServiceUnavailable || got.Called {
		t.Fatalf("status = %d, called = %v; want 503 and not called", w.Code, got.Called)
	}
}

// TestIdentityDerivationThroughMiddleware pins the spec's rule end to end: auth if present,
// else user, never a mix. "Both" is a user principal already on the context (as an outer
// layer could set it) plus a verified JWT.
func TestIdentityDerivationThroughMiddleware(t *testing.T) {
	withUser := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(identity.WithUser(r.Context(), sessionPrincipal)))
		})
	}
	tests := []struct {
		name    string
		outer   func(http.Handler) http.Handler
		req     request
		derived bool
		want    identity.Identity
	}{
		{name: "auth only", req: request{auth: []string{"Bearer jwt-approver"}}, derived: true,
			want: identity.Identity{TenantID: "acme", Actor: "ap-1", Roles: []string{identity.RoleApprover}, Source: identity.SourceAuth}},
		{name: "user only", req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"}, derived: true,
			want: identity.Identity{TenantID: "acme", Actor: "host-user-9", Roles: []string{identity.RoleOperator}, Source: identity.SourceUser, SessionID: "sess-1"}},
		{name: "both: auth wins, nothing of user leaks", outer: withUser, req: request{auth: []string{"Bearer jwt-admin"}}, derived: true,
			want: identity.Identity{TenantID: "acme", Actor: "ad-1", Roles: []string{identity.RoleAdmin}, Source: identity.SourceAuth}},
		{name: "neither", derived: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			h := identity.Authenticate(newStubVerifier(), &stubSessions{}, recordingHandler(&got))
			if tc.outer != nil {
				h = tc.outer(h)
			}
			if w := do(h, tc.req); w.Code != 200 {
				t.Fatalf("status = %d (body %s)", w.Code, w.Body)
			}
			if got.Derived != tc.derived {
				t.Fatalf("derived = %v, want %v", got.Derived, tc.derived)
			}
			if fmt.Sprintf("%+v", got.Identity) != fmt.Sprintf("%+v", tc.want) {
				t.Fatalf("identity = %+v, want %+v", got.Identity, tc.want)
			}
		})
	}
}

func TestGuards(t *testing.T) {
	chain := func(next http.Handler) http.Handler {
		return identity.Authenticate(newStubVerifier(), &stubSessions{},
			identity.ValidateGuestContext(identity.RequireApproverRole(next)))
	}
	tests := []struct {
		name   string
		h      func(http.Handler) http.Handler
		req    request
		status int
		code   string
	}{
		{name: "guest context: none", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), nil, identity.ValidateGuestContext(n))
		}, status: 401, code: "unauthenticated"},
		{name: "guest context: identity without tenant", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), nil, identity.ValidateGuestContext(n))
		}, req: request{auth: []string{"Bearer jwt-notenant"}}, status: 401, code: "unauthenticated"},
		{name: "guest context: session without tenant", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), &stubSessions{}, identity.ValidateGuestContext(n))
		}, req: request{auth: []string{"Bearer sat_notenant"}, contextID: "ctx-1"}, status: 401, code: "unauthenticated"},
		{name: "guest context: operator JWT", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), nil, identity.ValidateGuestContext(n))
		}, req: request{auth: []string{"Bearer jwt-operator"}}, status: 200},
		{name: "guest context: embedded session", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), &stubSessions{}, identity.ValidateGuestContext(n))
		}, req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"}, status: 200},

		{name: "approver chain: anonymous", h: chain, status: 401, code: "unauthenticated"},
		{name: "approver chain: operator", h: chain, req: request{auth: []string{"Bearer jwt-operator"}}, status: 403, code: "forbidden"},
		{name: "approver chain: operator session", h: chain, req: request{auth: []string{"Bearer sat_valid"}, contextID: "ctx-1"},
			status: 403, code: "forbidden"},
		{name: "approver chain: approver", h: chain, req: request{auth: []string{"Bearer jwt-approver"}}, status: 200},
		{name: "approver chain: admin", h: chain, req: request{auth: []string{"Bearer jwt-admin"}}, status: 200},
		{name: "approver chain: invalid token", h: chain, req: request{auth: []string{"Bearer jwt-forged"}}, status: 401, code: "invalid_token"},

		{name: "RequireRole alone refuses the anonymous with 401", h: func(n http.Handler) http.Handler {
			return identity.RequireRole(identity.RoleOperator, n)
		}, status: 401, code: "unauthenticated"},
		{name: "admin satisfies operator", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), nil, identity.RequireRole(identity.RoleOperator, n))
		}, req: request{auth: []string{"Bearer jwt-admin"}}, status: 200},
		{name: "approver does not satisfy admin", h: func(n http.Handler) http.Handler {
			return identity.Authenticate(newStubVerifier(), nil, identity.RequireRole(identity.RoleAdmin, n))
		}, req: request{auth: []string{"Bearer jwt-approver"}}, status: 403, code: "forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			w := do(tc.h(recordingHandler(&got)), tc.req)
			if w.Code != tc.status {
				t.Fatalf("status = %d, want %d (body %s)", w.Code, tc.status, w.Body)
			}
			if tc.status == 200 {
				if !got.Called {
					t.Fatal("the next handler did not run")
				}
				return
			}
			if got.Called {
				t.Fatal("the next handler ran for a refused request")
			}
			p := problemOf(t, w)
			if p.Code != tc.code {
				t.Fatalf("code = %q, want %q", p.Code, tc.code)
			}
			switch tc.status {
			case 401:
				if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("401 without a Bearer challenge")
				}
			case 403:
				if !strings.Contains(p.Detail, "approver") && !strings.Contains(p.Detail, "admin") {
					t.Fatalf("403 detail %q does not name the missing role", p.Detail)
				}
			}
		})
	}
}

// TestAuthenticateWithJWTVerifier runs the middleware over the real verifier: a valid
// token gets through, and an issuer that cannot be reached on a cold cache is a 503.
func TestAuthenticateWithJWTVerifier(t *testing.T) {
	testKeys(t)
	clock := newClock()
	up := newJWKSServer(t, ecKey)
	down := newJWKSServer(t, ecKey)
	down.setDown(true)
	tok := sign(t, ecKey, baseClaims(clock.Now()))
	tests := []struct {
		name   string
		url    string
		token  string
		status int
		code   string
	}{
		{name: "valid", url: up.URL, token: tok, status: 200},
		{name: "tampered", url: up.URL, token: tok[:len(tok)-4] + "AAAA", status: 401, code: "invalid_token"},
		{name: "issuer down, cold cache", url: down.URL, token: tok, status: 503, code: "identity_unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			h := identity.Authenticate(newVerifier(tc.url, clock), nil, identity.ValidateGuestContext(recordingHandler(&got)))
			w := do(h, request{auth: []string{"Bearer " + tc.token}})
			if w.Code != tc.status {
				t.Fatalf("status = %d, want %d (body %s)", w.Code, tc.status, w.Body)
			}
			if tc.status != 200 {
				if p := problemOf(t, w); p.Code != tc.code {
					t.Fatalf("code = %q, want %q", p.Code, tc.code)
				}
				return
			}
			if got.Identity.Source != identity.SourceAuth || got.Identity.Actor != "subject-marker-7f3a" || got.Identity.TenantID != "tenant-marker" {
				t.Fatalf("identity = %+v", got.Identity)
			}
		})
	}
}
