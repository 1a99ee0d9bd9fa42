package toolcatalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func clock() time.Time { return t0 }

// recordRedactor is the audit redactor the service wires: DLP's record policy.
type recordRedactor struct{ s *dlp.Scanner }

func (r recordRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

type env struct {
	cat    *toolcatalog.Catalog
	claims *syncerrortest.ClaimStore
	ledger *governancetest.Ledger
	audits *audittest.Store
	srv    *httptest.Server
}

// newEnv serves both routes behind a fake authentication middleware, as the wiring will:
// the identity comes from X-Test-* headers instead of a JWT.
func newEnv(t testing.TB, configure ...func(*toolcatalog.Catalog)) *env {
	t.Helper()
	scanner := dlp.NewScanner()
	e := &env{claims: syncerrortest.NewClaimStore(), ledger: &governancetest.Ledger{}, audits: &audittest.Store{}}
	e.cat = &toolcatalog.Catalog{
		Claims:    e.claims,
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest()},
		Ledger:    e.ledger,
		Scanner:   scanner,
		Audit:     &audit.Log{Store: e.audits, Redactor: recordRedactor{scanner}, Now: clock},
		Now:       clock,
	}
	for _, c := range configure {
		c(e.cat)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/mcp/tools", fakeAuth(e.cat.ToolsHandler()))
	mux.Handle("/api/mcp", fakeAuth(e.cat.MCPHandler()))
	e.srv = httptest.NewServer(httpapi.Instrument(slog.New(slog.NewTextHandler(io.Discard, nil)), mux))
	t.Cleanup(e.srv.Close)
	return e
}

func fakeAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tenant := r.Header.Get("X-Test-Tenant"); tenant != "" {
			var roles []string
			if v := r.Header.Get("X-Test-Roles"); v != "" {
				roles = strings.Split(v, ",")
			}
			r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{
				Subject: r.Header.Get("X-Test-Actor"), TenantID: tenant, Roles: roles}))
		}
		next.ServeHTTP(w, r)
	})
}

type caller struct {
	tenant, actor string
	roles         []string
}

var (
	operatorA = caller{"acme", "user:ana@acme", []string{identity.RoleOperator}}
	operatorB = caller{"globex", "user:bo@globex", []string{identity.RoleOperator}}
	approverA = caller{"acme", "user:apr@acme", []string{identity.RoleApprover}}
	// noRoleA is signed in to acme but holds no role.
	noRoleA   = caller{"acme", "user:guest@acme", nil}
	anonymous = caller{}
)

func (c caller) set(h http.Header) {
	if c.tenant == "" {
		return
	}
	h.Set("X-Test-Tenant", c.tenant)
	h.Set("X-Test-Actor", c.actor)
	h.Set("X-Test-Roles", strings.Join(c.roles, ","))
}

// testTransport is this package's own: an httptest server's Close closes
// http.DefaultTransport's idle connections, which can break a request in flight elsewhere
// (the MCP session's stream among them).
var testTransport = http.DefaultTransport.(*http.Transport).Clone()

type headerTransport struct{ c caller }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	h.c.set(r.Header)
	return testTransport.RoundTrip(r)
}

// connect opens an MCP client session of the official SDK as c; version "" lets the SDK
// ask for its newest protocol.
func (e *env) connect(t *testing.T, c caller, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             e.srv.URL + "/api/mcp",
		HTTPClient:           &http.Client{Transport: headerTransport{c}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// rawResponse is a JSON-RPC answer to a tools/call sent by hand, with the exact bytes the
// server wrote.
type rawResponse struct {
	status int
	body   []byte
	Result struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawCall sends one tools/call without a session (the endpoint is stateless) and keeps
// the response bytes, so tests can assert on what really went over the wire.
func (e *env) rawCall(t *testing.T, c caller, tool string, args any, meta map[string]any) rawResponse {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	resp := e.post(t, c, body, nil)
	out := rawResponse{status: resp.status, body: resp.body}
	if resp.status == http.StatusOK {
		if err := json.Unmarshal(resp.body, &out); err != nil {
			t.Fatalf("response is not JSON-RPC: %v\n%s", err, resp.body)
		}
	}
	return out
}

type httpResult struct {
	status int
	header http.Header
	body   []byte
}

func (e *env) post(t *testing.T, c caller, body []byte, header map[string]string) httpResult {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/api/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", toolcatalog.ProtocolVersion)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c.set(req.Header)
	return do(t, req)
}

func (e *env) get(t *testing.T, c caller, path string) httpResult {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	c.set(req.Header)
	return do(t, req)
}

func do(t *testing.T, req *http.Request) httpResult {
	t.Helper()
	resp, err := (&http.Client{Transport: testTransport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpResult{status: resp.StatusCode, header: resp.Header, body: b}
}

// callRecords returns the mcp.call audit records, oldest first.
func (e *env) callRecords() []audit.Record {
	var out []audit.Record
	for _, r := range e.audits.All() {
		if r.ActionKey == toolcatalog.ActionKeyCall {
			out = append(out, r)
		}
	}
	return out
}

func decode[T any](t *testing.T, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, raw)
	}
	return v
}
