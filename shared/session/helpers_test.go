package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/session/sessiontest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

const (
	hostPath    = "/api/embedded/host/bootstrap"
	contextPath = "/api/embedded/context/bootstrap"
	sessionPath = "/api/embedded/session"
	// auditPath stands for a route of the audit module behind the identity middleware.
	auditPath = "/api/audit"
	// plainPath stands for a route that belongs to no module.
	plainPath = "/api/plain"
)

// env is the embedded surface on one mux, as the local stack mounts it.
type env struct {
	*sessiontest.Fixture
	store *flakyStore
	mux   http.Handler
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{store: &flakyStore{Store: sessiontest.NewStore()}}
	e.Fixture = sessiontest.NewFixture(t, e.store)
	svc := e.Service
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := identity.FromContext(r.Context())
		httpapi.WriteJSON(w, http.StatusOK, id)
	})
	mux := http.NewServeMux()
	mux.Handle("POST "+hostPath, svc.HostBootstrapHandler())
	mux.Handle("POST "+contextPath, svc.ContextBootstrapHandler())
	mux.Handle("DELETE "+sessionPath, svc.TeardownHandler())
	mux.Handle("GET "+auditPath, identity.Authenticate(jwts, svc, identity.ValidateGuestContext(
		session.RequireModule(session.ModuleAudit, identity.RequireRole(identity.RoleOperator, echo)))))
	mux.Handle("GET "+plainPath, identity.Authenticate(jwts, svc, identity.ValidateGuestContext(session.RequireModule("", echo))))
	e.mux = httpapi.Instrument(slog.New(slog.NewTextHandler(io.Discard, nil)), mux)
	return e
}

// flakyStore fails the operations named in fail, once each, with a store error.
type flakyStore struct {
	*sessiontest.Store
	failCreate  atomic.Bool
	failSession atomic.Bool
}

var errStoreDown = errors.New("dynamodb: connection reset")

func (s *flakyStore) CreateSession(ctx context.Context, sess session.Session) error {
	if s.failCreate.CompareAndSwap(true, false) {
		return errStoreDown
	}
	return s.Store.CreateSession(ctx, sess)
}

func (s *flakyStore) SessionByTokenHash(ctx context.Context, tenantID, hash string) (session.Session, error) {
	if s.failSession.Load() {
		return session.Session{}, errStoreDown
	}
	return s.Store.SessionByTokenHash(ctx, tenantID, hash)
}

// stubJWTs is the operator JWT verifier: one known token.
type stubJWTs struct{}

const operatorJWT = "eyJhbGciOiJSUzI1NiJ9.operator.sig"

var operatorPrincipal = identity.Principal{Subject: "op-1", TenantID: "acme", Roles: []string{identity.RoleOperator, identity.RoleApprover}}

func (stubJWTs) Verify(_ context.Context, token string) (identity.Principal, error) {
	if token == operatorJWT {
		return operatorPrincipal, nil
	}
	return identity.Principal{}, identity.ErrTokenInvalid
}

var jwts identity.TokenVerifier = stubJWTs{}

// hostReq is a host bootstrap request; zero fields take the defaults.
type hostReq struct {
	tenant      string // X-Tenant-Id; "-" omits it
	secret      string
	body        string
	at          time.Time
	msgID       string
	contentType string
	noSig       bool
}

func bootstrapBody(user string, roles ...string) string {
	b, _ := json.Marshal(map[string]any{"userId": user, "hostAccountId": "acct-" + user, "roles": roles})
	return string(b)
}

var msgSeq atomic.Int64

func (e *env) host(t *testing.T, r hostReq) *httptest.ResponseRecorder {
	t.Helper()
	if r.tenant == "" {
		r.tenant = "acme"
	}
	if r.secret == "" {
		r.secret = sessiontest.WebhookSecret
	}
	if r.at.IsZero() {
		r.at = e.Clock.Now()
	}
	if r.msgID == "" {
		r.msgID = fmt.Sprintf("msg_%d", msgSeq.Add(1))
	}
	if r.contentType == "" {
		r.contentType = "application/json"
	}
	hr := httptest.NewRequest(http.MethodPost, hostPath, strings.NewReader(r.body))
	hr.Header.Set("Content-Type", r.contentType)
	if r.tenant != "-" {
		hr.Header.Set("X-Tenant-Id", r.tenant)
	}
	if !r.noSig {
		key, err := webhook.ParseSecret(r.secret)
		if err != nil {
			t.Fatal(err)
		}
		webhook.Sign(key, r.msgID, r.at, []byte(r.body)).Set(hr.Header)
	}
	rec := httptest.NewRecorder()
	e.mux.ServeHTTP(rec, hr)
	return rec
}

// issue bootstraps over HTTP and returns the answer.
func (e *env) issue(t *testing.T, tenantID, user string, roles ...string) session.Issued {
	t.Helper()
	rec := e.host(t, hostReq{tenant: tenantID, body: bootstrapBody(user, roles...)})
	if rec.Code != http.StatusCreated {
		t.Fatalf("bootstrap: %d %s", rec.Code, rec.Body)
	}
	var out session.Issued
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// call sends a request with an Authorization header (none if empty) and extra headers.
func (e *env) call(method, path, authorization, body string, headers ...string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	hr := httptest.NewRequest(method, path, rd)
	if body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if authorization != "" {
		hr.Header.Set("Authorization", authorization)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		hr.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.mux.ServeHTTP(rec, hr)
	return rec
}

func (e *env) openContext(t *testing.T, token, module string) session.OpenedContext {
	t.Helper()
	rec := e.call(http.MethodPost, contextPath, "Bearer "+token, `{"module":"`+module+`"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("context bootstrap: %d %s", rec.Code, rec.Body)
	}
	var out session.OpenedContext
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func problemOf(t *testing.T, rec *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q of %d %s, want application/problem+json", ct, rec.Code, rec.Body)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.CorrelationID == "" || p.Status != rec.Code {
		t.Fatalf("problem %+v: want a correlation id and status %d", p, rec.Code)
	}
	return p
}

func wantProblem(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) httpapi.Problem {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d %s, want %d %s", rec.Code, rec.Body, status, code)
	}
	p := problemOf(t, rec)
	if p.Code != code {
		t.Fatalf("code %q (%s), want %q", p.Code, p.Detail, code)
	}
	return p
}

// nothingStored fails unless the store is empty.
func (e *env) nothingStored(t *testing.T) {
	t.Helper()
	if s, c, r := e.store.Counts(); s+c+r != 0 {
		t.Fatalf("stored %d sessions, %d contexts, %d request ids; want nothing", s, c, r)
	}
}

// noTokenAnywhere fails if token appears in any audit record or stored record.
func (e *env) noTokenAnywhere(t *testing.T, token string) {
	t.Helper()
	secret := token[len(token)-43:]
	for _, r := range e.Audit.All() {
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), secret) {
			t.Fatalf("audit record holds the service token: %s", b)
		}
	}
	for _, line := range e.store.Dump() {
		if strings.Contains(line, secret) {
			t.Fatalf("stored record holds the service token: %s", line)
		}
	}
}

func auditKeys(records []audit.Record) []string {
	var out []string
	for _, r := range records {
		out = append(out, r.ActionKey+":"+r.Result)
	}
	return out
}

type failingAuditor struct{}

func (failingAuditor) Write(context.Context, audit.Entry) error {
	return errors.New("audit table unavailable")
}

func tenantWith(allowedRoles string) tenant.Config {
	return tenant.Config{ID: "acme", Settings: map[string]string{session.SettingAllowedRoles: allowedRoles}}
}
