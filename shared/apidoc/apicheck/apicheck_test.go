package apicheck_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/apidoc/apicheck"
)

// serve answers every request with status and body, whatever it was asked.
func serve(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if status >= 400 {
			w.Header().Set("Content-Type", "application/problem+json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

func through(t *testing.T, h http.Handler, method, target, body string) []apicheck.Finding {
	t.Helper()
	c, err := apicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	c.Wrap(h).ServeHTTP(w, r)
	return c.Findings()
}

// The checker finds an answer that breaks its schema, a status the operation does not
// document, an invalid request the server accepted and an undocumented route it served;
// a refused invalid request and a conforming exchange are no findings.
func TestCheckerFindsWhatLeavesTheDocument(t *testing.T) {
	const list = "/api/sync-error-assist/proposals"
	for _, c := range []struct {
		name, method, target, body string
		h                          http.Handler
		kind                       string
	}{
		{"answer breaks its schema", "GET", list, "", serve(200, `{"items":"not a list","nextCursor":null}`), "response"},
		{"undocumented status", "GET", list, "", serve(418, `{}`), "response"},
		{"invalid request accepted", "GET", list + "?limit=100000", "", serve(200, `{"items":[],"nextCursor":null}`), "request"},
		{"undocumented route served", "GET", "/api/no-such-route", "", serve(200, `{}`), "route"},
		{"invalid request refused", "GET", list + "?limit=100000", "", serve(400, `{"type":"about:blank","title":"Bad Request","status":400,"code":"invalid_query"}`), ""},
		{"conforms", "GET", list, "", serve(200, `{"items":[],"nextCursor":null}`), ""},
		{"the console's file", "GET", "/assets/app-X.js", "", serve(200, `{}`), ""},
	} {
		found := through(t, c.h, c.method, c.target, c.body)
		switch {
		case c.kind == "" && len(found) > 0:
			t.Errorf("%s: %v", c.name, found)
		case c.kind != "" && (len(found) != 1 || found[0].Kind != c.kind):
			t.Errorf("%s: want one %s finding, got %v", c.name, c.kind, found)
		}
	}
}

// Generated requests are valid for every operation unless broken on purpose, and a broken
// one is invalid whenever the generator found something to break.
func TestGeneratedRequestsAreWhatTheySayTheyAre(t *testing.T) {
	doc, err := apicheck.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range doc.Operations() {
		for seed := uint64(1); seed <= 5; seed++ {
			g := apicheck.Generate(op, seed, false, nil)
			v := doc.Judge(apicheck.Exchange{Request: g.Request, Body: g.Body, Status: 200, Header: http.Header{}})
			if v.Operation == "" {
				t.Errorf("%s seed %d: %s %s routes nowhere", op, seed, g.Request.Method, g.Request.URL)
			} else if v.RequestErr != nil {
				t.Errorf("%s seed %d: a valid request is invalid: %v\n%s", op, seed, v.RequestErr, g.Body)
			}
			b := apicheck.Generate(op, seed, true, nil)
			if b.Mutation == "" {
				continue
			}
			if v := doc.Judge(apicheck.Exchange{Request: b.Request, Body: b.Body, Status: 200, Header: http.Header{}}); v.RequestErr == nil {
				t.Errorf("%s seed %d: %q left the request valid: %s %s", op, seed, b.Mutation, b.Request.URL, b.Body)
			}
		}
	}
}

// Where a nested object says additionalProperties: false, a broken request is now and
// then one with an unknown member there (the generator only broke the top level), and the
// document calls it invalid: the fuzz then holds the server to refusing it.
func TestNestedUnknownMembersAreGenerated(t *testing.T) {
	doc, err := apicheck.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{ // the operations whose bodies nest a closed object
		"PUT /api/flows/xrefs": true, "PUT /api/settings/flows/{id}": true, "PATCH /api/settings": true,
		"PUT /api/settings/manifest-overrides": true, "PUT /api/settings/approval-policy": true,
		"POST /api/settings/flows/{id}/dry-run": true, "POST /api/sync-error-assist/proposals/{id}/triage": true,
	}
	for _, op := range doc.Operations() {
		if op.NestsClosed() != want[op.String()] {
			t.Errorf("%s: NestsClosed says %v", op, op.NestsClosed())
		}
		if !want[op.String()] {
			continue
		}
		found := ""
		for seed := uint64(1); seed <= 2000 && found == ""; seed++ {
			g := apicheck.Generate(op, seed, true, nil)
			if !strings.HasPrefix(g.Mutation, "unknown member ") || g.Mutation == "unknown member zzUnknown" {
				continue
			}
			found = g.Mutation
			if v := doc.Judge(apicheck.Exchange{Request: g.Request, Body: g.Body, Status: 200, Header: http.Header{}}); v.RequestErr == nil {
				t.Errorf("%s seed %d: %q left the request valid: %s", op, seed, g.Mutation, g.Body)
			}
		}
		if found == "" {
			t.Errorf("%s: no nested unknown member in 2000 seeds", op)
		}
		t.Logf("%s: %s", op, found)
		delete(want, op.String())
	}
	for op := range want {
		t.Errorf("%s is not an operation of the document", op)
	}
}

// The document holds an MCP message to JSON-RPC 2.0 §5: a response carries exactly one of
// result and error (it allowed both), and a request neither.
func TestJSONRPCMessageHasExactlyOneOfResultAndError(t *testing.T) {
	doc, err := apicheck.Load()
	if err != nil {
		t.Fatal(err)
	}
	for body, valid := range map[string]bool{
		`{"jsonrpc":"2.0","id":7,"result":{}}`:                                          true,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`:               true,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`:                                      true,
		`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":-32601,"message":"no"}}`:   false,
		`{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}`:                          false,
		`{"jsonrpc":"2.0","id":7,"result":null,"error":{"code":-32601,"message":"no"}}`: false,
	} {
		r := httptest.NewRequest("POST", "/api/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		v := doc.Judge(apicheck.Exchange{Request: r, Body: []byte(body), Status: 202, Header: http.Header{}})
		if v.Operation == "" || (v.RequestErr == nil) != valid {
			t.Errorf("%s: operation %q, request error %v, want valid %v", body, v.Operation, v.RequestErr, valid)
		}
	}
}
