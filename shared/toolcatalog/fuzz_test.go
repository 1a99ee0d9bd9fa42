package toolcatalog_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The MCP request parser: whatever the body, the endpoint answers (no panic) with a
// JSON-RPC message or a problem, never a 5xx, and a JSON answer is well-formed.
func FuzzMCPRequest(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"get_sync_error","arguments":{"id":"se_1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sync_errors","arguments":{"limit":1e309}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"id":null}`, `{`, ``, `null`,
	} {
		f.Add([]byte(seed))
	}
	e := newEnv(f)
	h := e.cat.MCPHandler()
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/api/mcp", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		operatorA.set(r.Header)
		w := httptest.NewRecorder()
		fakeAuth(h).ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("body %q: %d %s", body, w.Code, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); strings.Contains(ct, "json") && w.Body.Len() > 0 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("body %q: invalid JSON answer %q", body, w.Body)
		}
	})
}
