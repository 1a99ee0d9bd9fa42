package session_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/session"
)

func TestContextBootstrap(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	rec := e.call(http.MethodPost, contextPath, "bearer "+issued.ServiceToken, `{"module":"governance"}`)
	if rec.Code != http.StatusCreated || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	var raw map[string]any
	var out session.OpenedContext
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil || len(raw) != 3 {
		t.Fatalf("body %s: want exactly embeddedContextId, module, expiresAt", rec.Body)
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	if out.Module != "governance" || !out.ExpiresAt.Equal(e.Clock.Now().Add(15*time.Minute)) || !strings.HasPrefix(out.EmbeddedContextID, "ctx_") {
		t.Fatalf("opened %+v", out)
	}
	p, err := e.Service.Resolve(t.Context(), issued.ServiceToken, out.EmbeddedContextID)
	want := identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"operator"}, SessionID: issued.SessionID, Module: "governance"}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Fatalf("resolve %+v err=%v, want %+v", p, err, want)
	}
	recs := e.AuditOf(session.ActionContext)
	if len(recs) != 1 || recs[0].Actor.Actor != "alice" || recs[0].Actor.SessionID != issued.SessionID ||
		recs[0].Actor.Source != identity.SourceUser || !strings.Contains(string(recs[0].Details), `"module":"governance"`) {
		t.Fatalf("context audit %+v", recs)
	}
	e.noTokenAnywhere(t, issued.ServiceToken)
}

func TestContextBootstrapRefusals(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	expired := e.issue(t, "acme", "bob", "operator")
	revoked := e.issue(t, "acme", "carol", "operator")
	if rec := e.call(http.MethodDelete, sessionPath, "Bearer "+revoked.ServiceToken, ""); rec.Code != http.StatusNoContent {
		t.Fatalf("teardown: %d %s", rec.Code, rec.Body)
	}
	// A token of the right shape for acme that was never issued.
	forged := "sat_acme_" + strings.Repeat("A", 42) + "Q"
	// One character changed, to one it is not: the issued token ends "AA" one run in 4,096,
	// and "AA" written over it left it as issued (a CI run at 1341897 answered it 201).
	t2 := issued.ServiceToken
	swap := byte('A')
	if t2[len(t2)-2] == swap {
		swap = 'B'
	}
	tampered := t2[:len(t2)-2] + string(swap) + t2[len(t2)-1:]
	foreignTenant := "sat_globex_" + issued.ServiceToken[len("sat_acme_"):]

	cases := []struct {
		name, auth, body string
		status           int
		code             string
		expiredAt        bool
	}{
		{"no authorization", "", `{"module":"audit"}`, 401, "invalid_token", false},
		{"a JWT", "Bearer " + operatorJWT, `{"module":"audit"}`, 401, "invalid_token", false},
		{"basic scheme", "Basic " + issued.ServiceToken, `{"module":"audit"}`, 401, "invalid_token", false},
		{"malformed token", "Bearer sat_acme_short", `{"module":"audit"}`, 401, "invalid_token", false},
		{"forged token", "Bearer " + forged, `{"module":"audit"}`, 401, "invalid_token", false},
		{"tampered token", "Bearer " + tampered, `{"module":"audit"}`, 401, "invalid_token", false},
		{"token moved to another tenant", "Bearer " + foreignTenant, `{"module":"audit"}`, 401, "invalid_token", false},
		{"revoked token", "Bearer " + revoked.ServiceToken, `{"module":"audit"}`, 401, "invalid_token", false},
		{"expired token", "Bearer " + expired.ServiceToken, `{"module":"audit"}`, 401, "invalid_token", true},
		{"bad token before bad body", "Bearer " + forged, `{"module":`, 401, "invalid_token", false},
		{"unknown module", "Bearer " + issued.ServiceToken, `{"module":"payroll"}`, 400, "unknown_module", false},
		{"module in other case", "Bearer " + issued.ServiceToken, `{"module":"Audit"}`, 400, "unknown_module", false},
		{"no module", "Bearer " + issued.ServiceToken, `{}`, 400, "validation_failed", false},
		{"module not a string", "Bearer " + issued.ServiceToken, `{"module":["audit"]}`, 400, "validation_failed", false},
		{"unknown field", "Bearer " + issued.ServiceToken, `{"module":"audit","tenantId":"globex"}`, 400, "validation_failed", false},
		{"malformed body", "Bearer " + issued.ServiceToken, `{"module":`, 400, "malformed_json", false},
	}
	_, contextsBefore, _ := e.store.Counts()
	auditBefore := len(e.Audit.All())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.expiredAt {
				e.Clock.Set(expired.ExpiresAt)
				defer e.Clock.Set(expired.ExpiresAt.Add(-8 * time.Hour))
			}
			rec := e.call(http.MethodPost, contextPath, c.auth, c.body)
			p := wantProblem(t, rec, c.status, c.code)
			if c.status == 401 && (rec.Header().Get("WWW-Authenticate") == "" || strings.Contains(p.Detail, "sat_acme")) {
				t.Fatalf("401 without WWW-Authenticate or echoing the token: %v %+v", rec.Header(), p)
			}
			if c.expiredAt && !strings.Contains(p.Detail, "expired") {
				t.Fatalf("detail %q, want it to say the token expired", p.Detail)
			}
		})
	}
	if _, after, _ := e.store.Counts(); after != contextsBefore || len(e.Audit.All()) != auditBefore {
		t.Fatalf("refusals stored contexts (%d → %d) or audited (%d → %d)", contextsBefore, after, auditBefore, len(e.Audit.All()))
	}
	rec := e.call(http.MethodPost, contextPath, "Bearer "+issued.ServiceToken, "")
	wantProblem(t, rec, http.StatusUnsupportedMediaType, "unsupported_media_type")
}

func TestTokenWorksUntilExpiry(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	e.Clock.Set(issued.ExpiresAt.Add(-time.Second))
	late := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	if !late.ExpiresAt.Equal(issued.ExpiresAt) {
		t.Fatalf("context expires %v, after its token (%v)", late.ExpiresAt, issued.ExpiresAt)
	}
	rec := e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, late.EmbeddedContextID)
	if rec.Code != http.StatusOK {
		t.Fatalf("a second before expiry: %d %s", rec.Code, rec.Body)
	}
	e.Clock.Set(issued.ExpiresAt)
	wantProblem(t, e.call(http.MethodPost, contextPath, "Bearer "+issued.ServiceToken, `{"module":"audit"}`), 401, "invalid_token")
	wantProblem(t, e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, late.EmbeddedContextID),
		401, "invalid_token")
	if _, err := e.Service.Resolve(t.Context(), issued.ServiceToken, late.EmbeddedContextID); !errors.Is(err, identity.ErrTokenExpired) {
		t.Fatalf("resolve at expiry: err=%v, want ErrTokenExpired", err)
	}
}

func TestContextExpiresOnItsOwn(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	c := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	e.Clock.Advance(15*time.Minute - time.Second)
	if _, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c.EmbeddedContextID); err != nil {
		t.Fatalf("before the context's expiry: %v", err)
	}
	e.Clock.Advance(time.Second)
	if _, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c.EmbeddedContextID); !errors.Is(err, identity.ErrTokenExpired) {
		t.Fatalf("at the context's expiry: err=%v, want ErrTokenExpired", err)
	}
	wantProblem(t, e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, c.EmbeddedContextID),
		401, "invalid_token")
	// The token still opens a fresh context.
	fresh := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	if rec := e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, fresh.EmbeddedContextID); rec.Code != 200 {
		t.Fatalf("fresh context: %d %s", rec.Code, rec.Body)
	}
}

func TestConfiguredLifetimes(t *testing.T) {
	e := newEnv(t)
	e.Service.TokenTTL, e.Service.ContextTTL = time.Hour, 2*time.Hour
	issued := e.issue(t, "acme", "alice", "operator")
	c := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	if now := e.Clock.Now(); !issued.ExpiresAt.Equal(now.Add(time.Hour)) || !c.ExpiresAt.Equal(issued.ExpiresAt) {
		t.Fatalf("token %v, context %v: want one hour each (a context never outlives its token)", issued.ExpiresAt, c.ExpiresAt)
	}
}

func TestTeardown(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	keep := e.issue(t, "acme", "alice", "operator")
	c1 := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	e.openContext(t, issued.ServiceToken, session.ModuleGovernance)
	kc := e.openContext(t, keep.ServiceToken, session.ModuleAudit)

	rec := e.call(http.MethodDelete, sessionPath, "Bearer "+issued.ServiceToken, "")
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if s, c, _ := e.store.Counts(); s != 1 || c != 1 {
		t.Fatalf("after teardown %d sessions, %d contexts; want only the other session's", s, c)
	}
	for _, attempt := range []struct{ method, path, body string }{
		{http.MethodDelete, sessionPath, ""},
		{http.MethodPost, contextPath, `{"module":"audit"}`},
		{http.MethodGet, auditPath, ""},
	} {
		rec := e.call(attempt.method, attempt.path, "Bearer "+issued.ServiceToken, attempt.body, identity.HeaderEmbeddedContextID, c1.EmbeddedContextID)
		wantProblem(t, rec, http.StatusUnauthorized, "invalid_token")
	}
	if _, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c1.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
		t.Fatalf("resolve after teardown: err=%v, want ErrTokenInvalid", err)
	}
	if rec := e.call(http.MethodGet, auditPath, "Bearer "+keep.ServiceToken, "", identity.HeaderEmbeddedContextID, kc.EmbeddedContextID); rec.Code != 200 {
		t.Fatalf("the other session: %d %s", rec.Code, rec.Body)
	}
	recs := e.AuditOf(session.ActionTeardown)
	if len(recs) != 1 || recs[0].Actor.SessionID != issued.SessionID || recs[0].Actor.Actor != "alice" ||
		!strings.Contains(string(recs[0].Details), `"contextsDeleted":2`) {
		t.Fatalf("teardown audit %+v", recs)
	}
	e.noTokenAnywhere(t, issued.ServiceToken)
	wantProblem(t, e.call(http.MethodDelete, sessionPath, "", ""), http.StatusUnauthorized, "invalid_token")
}

func TestContextOfAnotherTenantOrSession(t *testing.T) {
	e := newEnv(t)
	a := e.issue(t, "acme", "alice", "operator")
	b := e.issue(t, "globex", "alice", "operator")
	a2 := e.issue(t, "acme", "alice", "operator")
	ca := e.openContext(t, a.ServiceToken, session.ModuleAudit)
	for name, token := range map[string]string{"other tenant": b.ServiceToken, "other session": a2.ServiceToken} {
		rec := e.call(http.MethodGet, auditPath, "Bearer "+token, "", identity.HeaderEmbeddedContextID, ca.EmbeddedContextID)
		wantProblem(t, rec, http.StatusUnauthorized, "invalid_token")
		if _, err := e.Service.Resolve(t.Context(), token, ca.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("%s: err=%v, want ErrTokenInvalid", name, err)
		}
	}
	for _, bad := range []string{"", "ctx_", "ctx_" + strings.Repeat("A", 22) + "#x", "tok#" + strings.Repeat("0", 64), ca.EmbeddedContextID + "A"} {
		if _, err := e.Service.Resolve(t.Context(), a.ServiceToken, bad); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("context id %q: err=%v, want ErrTokenInvalid", bad, err)
		}
	}
}

func TestResolveWhenTheStoreIsDown(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	c := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	e.store.failSession.Store(true)
	_, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c.EmbeddedContextID)
	if err == nil || errors.Is(err, identity.ErrTokenInvalid) || errors.Is(err, identity.ErrTokenExpired) {
		t.Fatalf("err=%v, want a store error (503), not a token verdict", err)
	}
	rec := e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, c.EmbeddedContextID)
	wantProblem(t, rec, http.StatusServiceUnavailable, identity.CodeIdentityUnavailable)
	wantProblem(t, e.call(http.MethodDelete, sessionPath, "Bearer "+issued.ServiceToken, ""), http.StatusServiceUnavailable, "temporarily_unavailable")
	e.store.failSession.Store(false)
	if s, _, _ := e.store.Counts(); s != 1 {
		t.Fatalf("a failed teardown removed the session")
	}
}

func TestRequireModule(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "acme", "alice", "operator")
	gov := e.openContext(t, issued.ServiceToken, session.ModuleGovernance)
	aud := e.openContext(t, issued.ServiceToken, session.ModuleAudit)

	p := wantProblem(t, e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, gov.EmbeddedContextID),
		http.StatusForbidden, session.CodeWrongModule)
	if !strings.Contains(p.Detail, "governance") || !strings.Contains(p.Detail, "audit") {
		t.Fatalf("detail %q, want both modules named", p.Detail)
	}
	rec := e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, aud.EmbeddedContextID)
	var got identity.Identity
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &got) != nil || got.Source != identity.SourceUser || got.SessionID != issued.SessionID {
		t.Fatalf("own module: %d %s", rec.Code, rec.Body)
	}
	wantProblem(t, e.call(http.MethodGet, plainPath, "Bearer "+issued.ServiceToken, "", identity.HeaderEmbeddedContextID, aud.EmbeddedContextID),
		http.StatusForbidden, session.CodeWrongModule)
	for _, path := range []string{auditPath, plainPath} {
		if rec := e.call(http.MethodGet, path, "Bearer "+operatorJWT, ""); rec.Code != 200 {
			t.Fatalf("JWT on %s: %d %s, want JWT callers unbound by modules", path, rec.Code, rec.Body)
		}
	}
	wantProblem(t, e.call(http.MethodGet, auditPath, "", ""), http.StatusUnauthorized, identity.CodeUnauthenticated)
	wantProblem(t, e.call(http.MethodGet, auditPath, "Bearer "+issued.ServiceToken, ""), http.StatusUnauthorized, identity.CodeEmbeddedContextRequired)
}

// The spec's rule: the identity comes from req.auth when present, else req.user, never a
// mix. With a verified JWT and an embedded session both present, the JWT wins whole.
func TestIdentityWithJWTAndEmbeddedSession(t *testing.T) {
	e := newEnv(t)
	issued := e.issue(t, "globex", "host-user", "approver")
	c := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
	user, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c.EmbeddedContextID)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := jwts.Verify(t.Context(), operatorJWT)
	if err != nil {
		t.Fatal(err)
	}
	want := identity.Identity{TenantID: "acme", Actor: "op-1", Roles: []string{"operator", "approver"}, Source: identity.SourceAuth}
	if got, ok := identity.Derive(&auth, &user); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Derive = %+v, want %+v (no session id, tenant or roles of the embedded user)", got, want)
	}

	// Through the middleware: a request already carrying the embedded principal that then
	// authenticates with a JWT, and a JWT request that also sends a context id.
	var seen []identity.Identity
	h := identity.Authenticate(jwts, e.Service, session.RequireModule(session.ModuleGovernance,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, _ := identity.FromContext(r.Context())
			seen = append(seen, id)
			w.WriteHeader(http.StatusNoContent)
		})))
	for _, withUser := range []bool{true, false} {
		r, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "/api/governance/approvals", nil)
		if withUser {
			r = r.WithContext(identity.WithUser(r.Context(), user))
		}
		r.Header.Set("Authorization", "Bearer "+operatorJWT)
		r.Header.Set(identity.HeaderEmbeddedContextID, c.EmbeddedContextID)
		rec := &statusWriter{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if rec.status != http.StatusNoContent {
			t.Fatalf("withUser=%v: status %d, want the JWT caller let through (not bound to module audit)", withUser, rec.status)
		}
	}
	if len(seen) != 2 || !slices.EqualFunc(seen, []identity.Identity{want, want}, func(a, b identity.Identity) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("identities %+v, want %+v twice", seen, want)
	}
}

type statusWriter struct {
	header http.Header
	status int
}

func (w *statusWriter) Header() http.Header { return w.header }
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	return len(b), nil
}
func (w *statusWriter) WriteHeader(s int) { w.status = s }
