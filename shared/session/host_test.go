package session_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/session/sessiontest"
	"github.com/syncassist/syncassist/shared/tenant"
)

var tokenShape = regexp.MustCompile(`^sat_acme_[A-Za-z0-9_-]{43}$`)

func TestHostBootstrapIssuesAToken(t *testing.T) {
	e := newEnv(t)
	rec := e.host(t, hostReq{body: bootstrapBody("alice", "operator", "approver", "operator")})
	if rec.Code != http.StatusCreated {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q, want no-store", cc)
	}
	var raw map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil || len(raw) != 3 {
		t.Fatalf("body %s: want exactly sessionId, serviceToken, expiresAt", rec.Body)
	}
	var out session.Issued
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	if !tokenShape.MatchString(out.ServiceToken) {
		t.Fatalf("token %q does not have the sat_<tenant>_<43 base64url> shape", out.ServiceToken)
	}
	if want := e.Clock.Now().Add(8 * time.Hour); !out.ExpiresAt.Equal(want) || raw["expiresAt"] != want.Format(time.RFC3339) {
		t.Fatalf("expiresAt %v (%v), want %v", out.ExpiresAt, raw["expiresAt"], want)
	}

	stored := e.store.Sessions("acme")
	sum := sha256.Sum256([]byte(out.ServiceToken))
	if len(stored) != 1 {
		t.Fatalf("stored %+v, want one session", stored)
	}
	want := session.Session{TenantID: "acme", ID: out.SessionID, TokenHash: hex.EncodeToString(sum[:]), UserID: "alice",
		HostAccountID: "acct-alice", Roles: []string{"operator", "approver"}, IssuedAt: e.Clock.Now(), ExpiresAt: out.ExpiresAt}
	if !reflect.DeepEqual(stored[0], want) {
		t.Fatalf("stored %+v\nwant   %+v", stored[0], want)
	}
	e.noTokenAnywhere(t, out.ServiceToken)

	recs := e.AuditOf(session.ActionBootstrap)
	if len(recs) != 1 {
		t.Fatalf("audit %v, want one bootstrap record", auditKeys(e.Audit.All()))
	}
	r := recs[0]
	wantActor := identity.Identity{TenantID: "acme", Actor: "alice", Roles: []string{"operator", "approver"},
		Source: identity.SourceUser, SessionID: out.SessionID}
	if r.TenantID != "acme" || r.ActionType != audit.TypeSession || r.Result != audit.ResultSuccess ||
		!reflect.DeepEqual(r.Actor, wantActor) || r.Resource != "session/"+out.SessionID || r.CorrelationID == "" ||
		!strings.Contains(string(r.Details), `"hostAccountId":"acct-alice"`) {
		t.Fatalf("audit record %+v", r)
	}
}

func TestHostBootstrapRefusalsStoreNothing(t *testing.T) {
	e0 := newEnv(t)
	now := e0.Clock.Now()
	long := strings.Repeat("é", 129)
	cases := []struct {
		name   string
		req    hostReq
		status int
		code   string
		fields []string
	}{
		{"wrong secret", hostReq{secret: "whsec_cHJldmlvdXMtc2VjcmV0LWZvci10ZXN0cw==", body: bootstrapBody("a", "operator")},
			401, "invalid_signature", nil},
		{"unknown tenant", hostReq{tenant: "nobody", body: bootstrapBody("a", "operator")}, 401, "invalid_signature", nil},
		{"malformed tenant id", hostReq{tenant: "ACME", body: bootstrapBody("a", "operator")}, 401, "invalid_signature", nil},
		{"stale timestamp", hostReq{at: now.Add(-6 * time.Minute), body: bootstrapBody("a", "operator")},
			401, "timestamp_out_of_tolerance", nil},
		{"future timestamp", hostReq{at: now.Add(6 * time.Minute), body: bootstrapBody("a", "operator")},
			401, "timestamp_out_of_tolerance", nil},
		{"no signature", hostReq{noSig: true, body: bootstrapBody("a", "operator")}, 401, "signature_missing", nil},
		{"no tenant header", hostReq{tenant: "-", body: bootstrapBody("a", "operator")}, 400, "tenant_header_missing", nil},
		{"not JSON", hostReq{contentType: "text/plain", body: bootstrapBody("a", "operator")}, 415, "unsupported_media_type", nil},
		{"too large", hostReq{body: `{"userId":"` + strings.Repeat("a", 5000) + `"}`}, 413, "payload_too_large", nil},
		{"malformed JSON", hostReq{body: `{"userId":`}, 400, "malformed_json", nil},
		{"two objects", hostReq{body: bootstrapBody("a", "operator") + `{}`}, 400, "malformed_json", nil},
		{"array", hostReq{body: `[]`}, 400, "malformed_json", nil},
		{"empty object", hostReq{body: `{}`}, 400, "validation_failed", []string{"userId", "hostAccountId", "roles"}},
		{"too long ids", hostReq{body: `{"userId":"` + long + `","hostAccountId":"` + long + `","roles":["operator"]}`},
			400, "validation_failed", []string{"userId", "hostAccountId"}},
		{"control character", hostReq{body: `{"userId":"a\u0000b","hostAccountId":"h","roles":["operator"]}`},
			400, "validation_failed", []string{"userId"}},
		{"empty roles", hostReq{body: `{"userId":"a","hostAccountId":"h","roles":[]}`}, 400, "validation_failed", []string{"roles"}},
		{"unknown role", hostReq{body: `{"userId":"a","hostAccountId":"h","roles":["operator","root"]}`},
			400, "validation_failed", []string{"roles[1]"}},
		{"roles not an array", hostReq{body: `{"userId":"a","hostAccountId":"h","roles":"operator"}`},
			400, "validation_failed", []string{"roles"}},
		{"userId not a string", hostReq{body: `{"userId":7,"hostAccountId":"h","roles":["operator"]}`},
			400, "validation_failed", []string{"userId"}},
		{"unknown field", hostReq{body: `{"userId":"a","hostAccountId":"h","roles":["operator"],"tenantId":"globex"}`},
			400, "validation_failed", []string{"tenantId"}},
		{"role beyond the tenant's", hostReq{body: bootstrapBody("a", "operator", "admin")}, 403, "role_not_allowed", nil},
		{"tenant allows no roles", hostReq{tenant: "initech", body: bootstrapBody("a", "operator")}, 403, "role_not_allowed", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			p := wantProblem(t, e.host(t, c.req), c.status, c.code)
			var fields []string
			for _, f := range p.Errors {
				fields = append(fields, f.Field)
			}
			if !slices.Equal(fields, c.fields) {
				t.Fatalf("field errors %+v, want %v", p.Errors, c.fields)
			}
			e.nothingStored(t)
			keys := auditKeys(e.Audit.All())
			if c.code == "role_not_allowed" {
				if !slices.Equal(keys, []string{"session.bootstrap:denied"}) {
					t.Fatalf("audit %v, want one denied bootstrap", keys)
				}
				if !strings.Contains(p.Detail, "admin") && !strings.Contains(p.Detail, "none") {
					t.Fatalf("detail %q does not say what is refused", p.Detail)
				}
			} else if len(keys) != 0 {
				t.Fatalf("audit %v, want nothing for an unauthenticated or invalid request", keys)
			}
		})
	}
}

func TestHostBootstrapRefusesAReplay(t *testing.T) {
	e := newEnv(t)
	req := hostReq{msgID: "msg_once", body: bootstrapBody("alice", "operator")}
	if rec := e.host(t, req); rec.Code != http.StatusCreated {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	e.Clock.Advance(4 * time.Minute)
	wantProblem(t, e.host(t, req), http.StatusConflict, session.CodeRequestReplayed)
	if n := len(e.store.Sessions("acme")); n != 1 {
		t.Fatalf("%d sessions, want the first only", n)
	}
	// The same id signed for another tenant is that tenant's own.
	if rec := e.host(t, hostReq{tenant: "globex", msgID: "msg_once", body: bootstrapBody("alice", "operator")}); rec.Code != http.StatusCreated {
		t.Fatalf("other tenant: %d %s", rec.Code, rec.Body)
	}
}

func TestHostBootstrapStoreFailureCanBeRetried(t *testing.T) {
	e := newEnv(t)
	e.store.failCreate.Store(true)
	req := hostReq{msgID: "msg_retry", body: bootstrapBody("alice", "operator")}
	p := wantProblem(t, e.host(t, req), http.StatusServiceUnavailable, "temporarily_unavailable")
	if strings.Contains(p.Detail, "connection reset") {
		t.Fatalf("detail %q leaks the internal error", p.Detail)
	}
	e.nothingStored(t)
	if rec := e.host(t, req); rec.Code != http.StatusCreated {
		t.Fatalf("retry of the same signed request: %d %s", rec.Code, rec.Body)
	}
}

func TestHostBootstrapIsNotIssuedUnaudited(t *testing.T) {
	e := newEnv(t)
	e.Service.Audit = failingAuditor{}
	wantProblem(t, e.host(t, hostReq{body: bootstrapBody("alice", "operator")}), http.StatusServiceUnavailable, "temporarily_unavailable")
	e.nothingStored(t)
}

// The bootstrap reads tenants through the same cache as the webhook; a tenant that has
// just opted in must not wait for the cache to expire.
func TestHostBootstrapSeesAJustEnabledTenant(t *testing.T) {
	e := newEnv(t)
	e.Service.Auth.Tenants = tenant.Directory{Reader: &tenant.Cache{Store: e.Tenants, TTL: time.Hour, Now: e.Clock.Now}}
	wantProblem(t, e.host(t, hostReq{tenant: "initech", body: bootstrapBody("a", "operator")}), http.StatusForbidden, session.CodeRoleNotAllowed)
	cfg, _ := e.Tenants.Get(t.Context(), "initech")
	cfg.Settings[session.SettingAllowedRoles] = "operator"
	if err := e.Tenants.Update(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if rec := e.host(t, hostReq{tenant: "initech", body: bootstrapBody("a", "operator")}); rec.Code != http.StatusCreated {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

func TestAllowedRoles(t *testing.T) {
	for setting, want := range map[string][]string{
		"":                             nil,
		"operator":                     {"operator"},
		" operator , approver,":        {"operator", "approver"},
		"approver,operator,approver":   {"approver", "operator"},
		"root,Operator,operator,admin": {"operator", "admin"},
	} {
		cfg := tenantWith(setting)
		if got := session.AllowedRoles(cfg); !slices.Equal(got, want) {
			t.Errorf("AllowedRoles(%q) = %v, want %v", setting, got, want)
		}
	}
}

// The tenant's webhook (ingest) secret cannot open a session: a leaked webhook secret must
// not mint approver sessions for a user of the holder's choosing.
func TestHostBootstrapRefusesTheIngestSecret(t *testing.T) {
	e := newEnv(t)
	wantProblem(t, e.host(t, hostReq{secret: sessiontest.IngestSecret, body: bootstrapBody("mallory", "operator")}),
		http.StatusUnauthorized, "invalid_signature")
	e.nothingStored(t)
}

// The host bootstrap's optional "modules" (documented in the API description) grants the
// session those modules alone over HTTP: a context for another is 403 module_not_granted.
// The handler refused the member as unknown before, so no host could grant modules.
func TestHostBootstrapGrantsTheModulesItNames(t *testing.T) {
	e := newEnv(t)
	rec := e.host(t, hostReq{body: `{"userId": "u1", "hostAccountId": "a1", "roles": ["operator"], "modules": ["sync-errors", "finance-approvals"]}`})
	if rec.Code != http.StatusCreated {
		t.Fatalf("bootstrap: %d %s", rec.Code, rec.Body)
	}
	var issued session.Issued
	if err := json.Unmarshal(rec.Body.Bytes(), &issued); err != nil {
		t.Fatal(err)
	}
	e.openContext(t, issued.ServiceToken, session.ModuleFinanceApprovals)
	wantProblem(t, e.call(http.MethodPost, contextPath, "Bearer "+issued.ServiceToken, `{"module":"audit"}`), http.StatusForbidden, "module_not_granted")
	wantProblem(t, e.host(t, hostReq{body: `{"userId": "u1", "hostAccountId": "a1", "roles": ["operator"], "modules": "audit"}`}),
		http.StatusBadRequest, "validation_failed")
}

// A module listed twice is refused naming it (the document's uniqueItems), not quietly
// deduplicated: the host's list is taken as sent or not at all.
func TestHostBootstrapRefusesAModuleListedTwice(t *testing.T) {
	e := newEnv(t)
	p := wantProblem(t, e.host(t, hostReq{body: `{"userId": "u1", "hostAccountId": "a1", "roles": ["operator"], "modules": ["audit", "audit"]}`}),
		http.StatusBadRequest, "validation_failed")
	if len(p.Errors) != 1 || p.Errors[0].Field != "modules[1]" {
		t.Fatalf("errors %+v, want modules[1]", p.Errors)
	}
}

// A refused replay of a validly signed bootstrap is audited as denied, naming the request
// id and the user it was for: a captured request played again is what an auditor looks
// for, and it was refused without a record.
func TestHostBootstrapReplayIsAudited(t *testing.T) {
	e := newEnv(t)
	req := hostReq{msgID: "msg_twice", body: bootstrapBody("alice", "operator")}
	if rec := e.host(t, req); rec.Code != http.StatusCreated {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	wantProblem(t, e.host(t, req), http.StatusConflict, session.CodeRequestReplayed)
	recs := e.AuditOf(session.ActionBootstrap)
	if keys := auditKeys(recs); !slices.Equal(keys, []string{"session.bootstrap:success", "session.bootstrap:denied"}) {
		t.Fatalf("audit %v, want the bootstrap and its refused replay", keys)
	}
	r := recs[1]
	if r.TenantID != "acme" || r.Actor.Actor != "alice" || r.Actor.Source != identity.SourceUser || r.Actor.SessionID != "" ||
		!strings.Contains(string(r.Details), `"replayedRequestId":"msg_twice"`) {
		t.Fatalf("denied record %+v details %s", r, r.Details)
	}
}

// A context refused because the host did not grant its module is audited as denied,
// naming the module and the session: the probe of a leaked service token left no record.
func TestContextForAnUngrantedModuleIsAudited(t *testing.T) {
	e := newEnv(t)
	rec := e.host(t, hostReq{body: `{"userId": "u1", "hostAccountId": "a1", "roles": ["operator"], "modules": ["sync-errors"]}`})
	if rec.Code != http.StatusCreated {
		t.Fatalf("bootstrap: %d %s", rec.Code, rec.Body)
	}
	var issued session.Issued
	if err := json.Unmarshal(rec.Body.Bytes(), &issued); err != nil {
		t.Fatal(err)
	}
	wantProblem(t, e.call(http.MethodPost, contextPath, "Bearer "+issued.ServiceToken, `{"module":"settings"}`), http.StatusForbidden, "module_not_granted")
	recs := e.AuditOf(session.ActionContext)
	if keys := auditKeys(recs); !slices.Equal(keys, []string{"session.context:denied"}) {
		t.Fatalf("audit %v, want one denied context", keys)
	}
	r := recs[0]
	if r.Actor.Actor != "u1" || r.Actor.SessionID != issued.SessionID || r.Resource != "session/"+issued.SessionID ||
		!strings.Contains(string(r.Details), `"module":"settings"`) {
		t.Fatalf("denied record %+v details %s", r, r.Details)
	}
	e.noTokenAnywhere(t, issued.ServiceToken)
}
