package toolcatalog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

func TestMCPNegotiates20251125(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ name, asks string }{
		{"client asks 2025-11-25", "2025-11-25"},
		// The SDK's newest is 2026-07-28; the endpoint answers its server/discover with the
		// versions it speaks and the client falls back to initialize with 2025-11-25.
		{"client asks its newest", ""},
		{"client asks 2025-06-18", "2025-06-18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.connect(t, operatorA, tc.asks)
			want := tc.asks
			if want == "" {
				want = "2025-11-25"
			}
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Errorf("negotiated %q, want %q", got, want)
			}
			if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != toolcatalog.ServerName {
				t.Errorf("server info %+v", info)
			}
		})
	}
}

// tools/list answers exactly what the catalogue route lists: same names, descriptions
// and input schemas.
func TestMCPToolsListEqualsCatalogue(t *testing.T) {
	e := newEnv(t)
	type listed struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		} `json:"tools"`
	}
	catalogue := decode[listed](t, e.get(t, operatorA, "/api/mcp/tools").body)

	cs := e.connect(t, operatorA, toolcatalog.ProtocolVersion)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(catalogue.Tools) {
		t.Fatalf("tools/list has %d tools, catalogue %d", len(res.Tools), len(catalogue.Tools))
	}
	// The SDK lists tools by name; the catalogue in the spec's order.
	for _, tool := range res.Tools {
		i := slices.IndexFunc(catalogue.Tools, func(c struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			InputSchema any    `json:"inputSchema"`
		}) bool {
			return c.Name == tool.Name
		})
		if i < 0 {
			t.Errorf("tools/list has %q, the catalogue does not", tool.Name)
			continue
		}
		want := catalogue.Tools[i]
		if tool.Name != want.Name || tool.Description != want.Description {
			t.Errorf("%q/%q, catalogue %q/%q", tool.Name, tool.Description, want.Name, want.Description)
		}
		if !reflect.DeepEqual(tool.InputSchema, want.InputSchema) {
			t.Errorf("%s: schema differs\nmcp:       %v\ncatalogue: %v", tool.Name, tool.InputSchema, want.InputSchema)
		}
	}
}

// The identity the HTTP layer authenticated is the one the tool handler acts and audits
// for: the audit record of the call names it, and the call sees only its tenant's data.
func TestMCPCarriesIdentityIntoToolCalls(t *testing.T) {
	e := newEnv(t)
	seedClaims(t, e)
	cs := e.connect(t, operatorB, toolcatalog.ProtocolVersion)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolcatalog.ToolIntegrationStatus,
		Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	summary := decode[toolcatalog.StatusSummary](t, structured(t, res))
	if summary.TenantID != "globex" || summary.Total != 1 {
		t.Errorf("summary for tenant %q with %d rows, want globex's 1", summary.TenantID, summary.Total)
	}
	recs := e.callRecords()
	if len(recs) != 1 {
		t.Fatalf("%d mcp.call records", len(recs))
	}
	r := recs[0]
	if r.TenantID != "globex" || r.Actor.Actor != operatorB.actor || r.Actor.Source != identity.SourceAuth ||
		r.ActionType != toolcatalog.ActionTypeMCP || r.Result != audit.ResultSuccess || r.CorrelationID == "" {
		t.Errorf("audit record %+v", r)
	}
}

func structured(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", res.Content[0])
	}
	var a, b2 any
	_ = json.Unmarshal(b, &a)
	_ = json.Unmarshal([]byte(text.Text), &b2)
	if !res.IsError && !reflect.DeepEqual(a, b2) {
		t.Errorf("text content differs from structured content")
	}
	return b
}

func TestMCPRefusesBeforeTheSDK(t *testing.T) {
	e := newEnv(t)
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	toolsCall := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"service.mcp_discover","arguments":{"secret":"nope"}}}`)
	big := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service.governance_check","arguments":{"input":{"note":"` +
		strings.Repeat("x", toolcatalog.MaxRequestBytes) + `"}}}}`)
	for _, tc := range []struct {
		name   string
		who    caller
		body   []byte
		header map[string]string
		status int
		code   string
	}{
		{"no identity", anonymous, initialize, nil, http.StatusUnauthorized, "unauthenticated"},
		{"no operator role", noRoleA, toolsCall, nil, http.StatusForbidden, "forbidden"},
		{"body over 256 KiB", operatorA, big, nil, http.StatusRequestEntityTooLarge, "body_too_large"},
		{"not JSON", operatorA, initialize, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"accepts no event stream", operatorA, initialize, map[string]string{"Accept": "application/json"}, http.StatusNotAcceptable, "not_acceptable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.post(t, tc.who, tc.body, tc.header)
			if res.status != tc.status || res.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d (%s), want %d problem+json: %.300s", res.status, res.header.Get("Content-Type"), tc.status, res.body)
			}
			if p := decode[listProblem](t, res.body); p.Code != tc.code {
				t.Errorf("code %q, want %q", p.Code, tc.code)
			}
		})
	}
	t.Run("GET", func(t *testing.T) {
		res := e.get(t, operatorA, "/api/mcp")
		if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") != http.MethodPost {
			t.Errorf("status %d, Allow %q", res.status, res.header.Get("Allow"))
		}
	})
	t.Run("the role refusal is audited without arguments", func(t *testing.T) {
		recs := e.callRecords()
		if len(recs) != 1 || recs[0].Result != audit.ResultDenied || recs[0].TenantID != "acme" {
			t.Fatalf("records %+v", recs)
		}
		if strings.Contains(string(recs[0].Details), "nope") || !strings.Contains(string(recs[0].Details), toolcatalog.ToolMCPDiscover) {
			t.Errorf("details %s", recs[0].Details)
		}
	})
}

// Every tool answers a valid call and refuses invalid arguments with a tool error the
// model can act on (isError, not a protocol error); each call is audited with the
// argument names and never their values.
func TestMCPCallsEveryTool(t *testing.T) {
	e := newEnv(t)
	seedClaims(t, e)
	cs := e.connect(t, operatorA, toolcatalog.ProtocolVersion)
	fields := []map[string]any{{"name": "email", "type": "string"}, {"name": "zip", "type": "string"}}
	cases := []struct {
		name      string
		tool      string
		args      map[string]any
		wantError string // empty: success
	}{
		{"mapping", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "webshop", "targetSystem": "hosterp",
			"sourceFields": fields, "targetFields": []map[string]any{{"name": "emailAddress", "type": "email", "required": true}}}, ""},
		{"mapping without targetFields", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "a",
			"targetSystem": "b", "sourceFields": fields}, `"targetFields" is required`},
		{"mapping with a field without type", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "a",
			"targetSystem": "b", "sourceFields": []map[string]any{{"name": "email"}}, "targetFields": fields},
			`sourceFields[0]: "type" is required`},
		{"mapping threshold out of range", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "a",
			"targetSystem": "b", "sourceFields": fields, "targetFields": fields, "confidenceThreshold": 1.5},
			"confidenceThreshold: must be between 0 and 1"},
		{"mapping threshold as text", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "a",
			"targetSystem": "b", "sourceFields": fields, "targetFields": fields, "confidenceThreshold": "high"},
			"confidenceThreshold: must be a number (got a string)"},
		{"mapping with duplicate field names", toolcatalog.ToolFieldMappingSuggest, map[string]any{"sourceSystem": "a",
			"targetSystem": "b", "sourceFields": append(fields, fields[0]), "targetFields": fields},
			"sourceFields[2].name: repeats"},
		{"status", toolcatalog.ToolIntegrationStatus, map[string]any{"status": "pending", "limit": 5}, ""},
		{"status with nulls", toolcatalog.ToolIntegrationStatus, map[string]any{"status": nil, "limit": nil}, ""},
		{"status unknown", toolcatalog.ToolIntegrationStatus, map[string]any{"status": "done"}, "status: must be one of: pending, retrying, applying, approved, rejected, escalated, resolved, reverted"},
		{"status limit fraction", toolcatalog.ToolIntegrationStatus, map[string]any{"limit": 2.5}, "limit: must be a whole number"},
		{"status limit too big", toolcatalog.ToolIntegrationStatus, map[string]any{"limit": 101}, "limit: must be between 1 and 100"},
		{"status unknown argument", toolcatalog.ToolIntegrationStatus, map[string]any{"tenantId": "globex"},
			`"tenantId" is not an argument here; allowed: customerId, limit, sourceSystem, status`},
		{"governance", toolcatalog.ToolGovernanceCheck, map[string]any{"input": map[string]any{"entity": "customer",
			"recordId": "C-1", "fields": map[string]any{"creditLimit": 5000}}, "sourceSystem": "hosterp", "targetSystem": "hosterp"}, ""},
		{"governance without input", toolcatalog.ToolGovernanceCheck, map[string]any{"sourceSystem": "crm"}, `"input" is required`},
		{"governance input not an object", toolcatalog.ToolGovernanceCheck, map[string]any{"input": "update customer"},
			"input: must be an object (got a string)"},
		{"discover", toolcatalog.ToolMCPDiscover, map[string]any{}, ""},
		{"discover with an argument", toolcatalog.ToolMCPDiscover, map[string]any{"server": "x"}, "allowed: none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			body := structured(t, res)
			if tc.wantError == "" {
				if res.IsError {
					t.Fatalf("isError: %s", body)
				}
				return
			}
			if !res.IsError {
				t.Fatalf("want isError, got %s", body)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.Contains(text, tc.wantError) || !strings.Contains(text, "Fix the arguments") {
				t.Errorf("message %q does not say %q", text, tc.wantError)
			}
			te := decode[toolcatalog.ToolError](t, body)
			if te.Error.Code != "invalid_arguments" || len(te.Error.Errors) == 0 {
				t.Errorf("structured error %s", body)
			}
		})
	}
	recs := e.callRecords()
	if len(recs) != len(cases) {
		t.Fatalf("%d mcp.call records for %d calls", len(recs), len(cases))
	}
	for i, tc := range cases {
		r := recs[i]
		var d struct {
			Tool         string   `json:"tool"`
			ArgumentKeys []string `json:"argumentKeys"`
			Outcome      string   `json:"outcome"`
		}
		_ = json.Unmarshal(r.Details, &d)
		wantKeys := keys(tc.args)
		if wantKeys == nil {
			wantKeys = []string{}
		}
		wantResult, wantOutcome := audit.ResultSuccess, "ok"
		if tc.wantError != "" {
			wantResult, wantOutcome = audit.ResultFailure, "invalid_arguments"
		}
		if d.Tool != tc.tool || !slices.Equal(d.ArgumentKeys, wantKeys) || d.Outcome != wantOutcome ||
			r.Result != wantResult || r.TenantID != "acme" || r.Actor.Actor != operatorA.actor ||
			r.ActionType != toolcatalog.ActionTypeMCP || r.Resource != "mcp/"+tc.tool {
			t.Errorf("%s: record %+v details %s", tc.name, r, r.Details)
		}
		for _, v := range []string{"globex", "update customer", "webshop"} {
			if strings.Contains(string(r.Details), v) {
				t.Errorf("%s: details hold an argument value %q: %s", tc.name, v, r.Details)
			}
		}
	}
}

func TestMCPUnknownToolIsAProtocolError(t *testing.T) {
	e := newEnv(t)
	res := e.rawCall(t, operatorA, "service.delete_everything", map[string]any{}, nil)
	if res.status != http.StatusOK || res.Error == nil || !strings.Contains(res.Error.Message, "unknown tool") {
		t.Errorf("status %d: %s", res.status, res.body)
	}
	if n := len(e.callRecords()); n != 0 {
		t.Errorf("%d audit records for a tool that does not exist", n)
	}
}

// A result the audit log cannot record is withheld.
func TestMCPWithholdsUnauditedResults(t *testing.T) {
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.Audit.Store = failingStore{} })
	seedClaims(t, e)
	res := e.rawCall(t, operatorA, toolcatalog.ToolIntegrationStatus, map[string]any{}, nil)
	if !res.Result.IsError || strings.Contains(string(res.body), "errorId") {
		t.Errorf("want a withheld result: %s", res.body)
	}
}

type failingStore struct{}

func (failingStore) Put(context.Context, audit.Record) error { return context.DeadlineExceeded }
func (failingStore) Query(context.Context, audit.Query) (audit.Page, error) {
	return audit.Page{}, context.DeadlineExceeded
}

// The JSON-RPC edges the SDK client never sends: each answer is what JSON-RPC 2.0 and
// MCP's Streamable HTTP transport prescribe.
func TestMCPProtocolEdges(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
		status int
		code   int // JSON-RPC error code; 0: a result, or no body
	}{
		{"ping", `{"jsonrpc":"2.0","id":"p1","method":"ping"}`, nil, http.StatusOK, 0},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, http.StatusAccepted, 0},
		{"client response", `{"jsonrpc":"2.0","id":7,"result":{}}`, nil, http.StatusAccepted, 0},
		{"client error response", `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`, nil, http.StatusAccepted, 0},
		// JSON-RPC 2.0 §5: a response has exactly one of them (it answered 202).
		{"response with result and error", `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":-32601,"message":"no"}}`, nil, http.StatusBadRequest, -32600},
		{"not JSON", `{"jsonrpc":`, nil, http.StatusBadRequest, -32700},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, http.StatusBadRequest, -32600},
		// JSON that is no object is an invalid request, not a parse error (JSON-RPC 2.0 §5.1).
		{"a number", `1`, nil, http.StatusBadRequest, -32600},
		{"a string", `"ping"`, nil, http.StatusBadRequest, -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, nil, http.StatusBadRequest, -32600},
		// Member names are case-sensitive: encoding/json served METHOD and NAME.
		{"METHOD", `{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`, nil, http.StatusBadRequest, -32600},
		{"a later Method does not override method", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"resources/list"}`, nil, http.StatusOK, 0},
		{"NAME", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"service.mcp_discover","arguments":{}}}`, nil, http.StatusOK, -32602},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, http.StatusBadRequest, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, http.StatusBadRequest, -32600},
		{"no method", `{"jsonrpc":"2.0","id":1}`, nil, http.StatusBadRequest, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, nil, http.StatusOK, -32601},
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, http.StatusOK, -32601},
		{"call without a name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, nil, http.StatusOK, -32602},
		{"initialize params not an object", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1]}`, nil, http.StatusOK, -32602},
		// A scalar params is not JSON-RPC, a notification's neither (issue 36 §2, the fuzz's finding).
		{"params a number", `{"jsonrpc":"2.0","id":1,"method":"ping","params":7}`, nil, http.StatusBadRequest, -32600},
		{"request with an error", `{"jsonrpc":"2.0","id":1,"method":"ping","error":7}`, nil, http.StatusBadRequest, -32600},
		{"notification params a string", `{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}`, nil, http.StatusBadRequest, -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.post(t, operatorA, []byte(tc.body), tc.header)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if res.status == http.StatusAccepted {
				if len(res.body) != 0 {
					t.Errorf("a 202 with a body: %s", res.body)
				}
				return
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(res.body, &msg); err != nil || msg.JSONRPC != "2.0" || res.header.Get("Content-Type") != "application/json" {
				t.Fatalf("not a JSON-RPC answer (%v, %s): %s", err, res.header.Get("Content-Type"), res.body)
			}
			switch {
			case tc.code == 0 && (msg.Error != nil || msg.Result == nil):
				t.Errorf("want a result: %s", res.body)
			case tc.code != 0 && (msg.Error == nil || msg.Error.Code != tc.code):
				t.Errorf("want error %d: %s", tc.code, res.body)
			}
		})
	}
	t.Run("a protocol version the endpoint does not speak", func(t *testing.T) {
		res := e.post(t, operatorA, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), map[string]string{"MCP-Protocol-Version": "2024-11-05"})
		if res.status != http.StatusBadRequest || decode[listProblem](t, res.body).Code != "unsupported_protocol_version" {
			t.Errorf("status %d: %s", res.status, res.body)
		}
	})
}

// The transport requires a server to refuse an Origin it does not accept (403), so a page
// in a user's browser, or one reached by DNS rebinding, cannot call the tools; an agent
// sends no Origin, and an origin the API's CORS configuration lists is served.
func TestMCPRefusesABrowserOriginItDoesNotAllow(t *testing.T) {
	e := newEnv(t, func(c *toolcatalog.Catalog) { c.Origins = []string{"https://erp.example.com"} })
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	for _, tc := range []struct {
		origin string
		want   int
	}{{"https://evil.example", http.StatusForbidden}, {"null", http.StatusForbidden},
		{"", http.StatusOK}, {"https://erp.example.com", http.StatusOK}, {"HTTPS://ERP.EXAMPLE.COM", http.StatusOK}} {
		header := map[string]string{}
		if tc.origin != "" {
			header["Origin"] = tc.origin
		}
		res := e.post(t, operatorA, list, header)
		if res.status != tc.want {
			t.Errorf("Origin %q: %d %.120s, want %d", tc.origin, res.status, res.body, tc.want)
		}
		if tc.want == http.StatusForbidden && !strings.Contains(string(res.body), toolcatalog.CodeOriginNotAllowed) {
			t.Errorf("Origin %q: body %.200s lacks %s", tc.origin, res.body, toolcatalog.CodeOriginNotAllowed)
		}
	}
}

// The role refusal's audit record names the method and tool as the endpoint reads them,
// by exact member names: a later "Method" or a "NAME" is not what the call was.
func TestMCPRefusalAuditReadsExactMemberNames(t *testing.T) {
	e := newEnv(t)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call",` +
		`"params":{"NAME":"service.mcp_discover"}}`)
	if res := e.post(t, noRoleA, body, nil); res.status != http.StatusForbidden {
		t.Fatalf("status %d, want 403: %.300s", res.status, res.body)
	}
	recs := e.callRecords()
	if len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
	var d map[string]any
	if err := json.Unmarshal(recs[0].Details, &d); err != nil {
		t.Fatal(err)
	}
	if d["method"] != "ping" || d["tool"] != nil {
		t.Errorf("details %s, want method ping and no tool", recs[0].Details)
	}
}
