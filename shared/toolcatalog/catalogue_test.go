package toolcatalog_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

var update = flag.Bool("update", false, "rewrite testdata/catalogue.golden.json")

// specTools is the spec's "Tool catalogue" section, table by table: property → type
// ("array<field>" is an array of field objects, "array<object>" an array of objects) and
// the required list.
var specTools = []struct {
	name     string
	props    map[string]string
	required []string
}{
	{toolcatalog.ToolFieldMappingSuggest, map[string]string{
		"sourceSystem": "string", "targetSystem": "string", "sourceFields": "array<field>",
		"targetFields": "array<field>", "sampleData": "array<object>", "confidenceThreshold": "number",
	}, []string{"sourceSystem", "targetSystem", "sourceFields", "targetFields"}},
	{toolcatalog.ToolIntegrationStatus, map[string]string{
		"status": "string", "sourceSystem": "string", "customerId": "string", "limit": "number",
	}, nil},
	{toolcatalog.ToolGovernanceCheck, map[string]string{
		"input": "object", "sourceSystem": "string", "targetSystem": "string", "userId": "string",
	}, []string{"input"}},
	{toolcatalog.ToolMCPDiscover, map[string]string{}, nil},
}

// specField is the spec's field object.
var specField = struct {
	props    map[string]string
	required []string
}{map[string]string{"name": "string", "type": "string", "description": "string", "required": "boolean"}, []string{"name", "type"}}

type jsonSchema struct {
	Type                 string                 `json:"type"`
	Description          string                 `json:"description"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Required             []string               `json:"required"`
	Items                *jsonSchema            `json:"items"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
}

type listBody struct {
	Success         bool   `json:"success"`
	ProtocolVersion string `json:"protocolVersion"`
	Timestamp       string `json:"timestamp"`
	Tools           []struct {
		Name        string     `json:"name"`
		Description string     `json:"description"`
		InputSchema jsonSchema `json:"inputSchema"`
	} `json:"tools"`
}

func TestCatalogueMatchesSpecTables(t *testing.T) {
	e := newEnv(t)
	res := e.get(t, operatorA, "/api/mcp/tools")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q: %s", res.status, res.header.Get("Content-Type"), res.body)
	}
	body := decode[listBody](t, res.body)
	if !body.Success || body.ProtocolVersion != "2025-11-25" {
		t.Errorf("success %v, protocolVersion %q", body.Success, body.ProtocolVersion)
	}
	if ts, err := time.Parse(time.RFC3339, body.Timestamp); err != nil || !ts.Equal(t0) {
		t.Errorf("timestamp %q: %v", body.Timestamp, err)
	}
	if len(body.Tools) != len(specTools) {
		t.Fatalf("%d tools, want %d", len(body.Tools), len(specTools))
	}
	for i, want := range specTools {
		got := body.Tools[i]
		t.Run(want.name, func(t *testing.T) {
			if got.Name != want.name {
				t.Fatalf("tool %d is %q, want %q", i, got.Name, want.name)
			}
			if got.Description == "" {
				t.Error("no description")
			}
			s := got.InputSchema
			if s.Type != "object" || s.Properties == nil {
				t.Fatalf("input schema type %q, properties %v", s.Type, s.Properties)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Error("top level must be closed (additionalProperties: false)")
			}
			checkProps(t, "", s, want.props, want.required)
		})
	}
}

func checkProps(t *testing.T, at string, s jsonSchema, props map[string]string, required []string) {
	t.Helper()
	if len(s.Properties) != len(props) {
		t.Errorf("%sproperties %v, want %v", at, keys(s.Properties), props)
	}
	if !slices.Equal(s.Required, required) {
		t.Errorf("%srequired %v, want %v", at, s.Required, required)
	}
	for name, typ := range props {
		p := s.Properties[name]
		if p == nil {
			t.Errorf("%s%s missing", at, name)
			continue
		}
		if p.Description == "" {
			t.Errorf("%s%s has no description", at, name)
		}
		switch typ {
		case "array<field>":
			if p.Type != "array" || p.Items == nil || p.Items.Type != "object" {
				t.Errorf("%s%s: want an array of field objects", at, name)
				continue
			}
			if p.Items.AdditionalProperties != nil {
				t.Errorf("%s%s: field objects stay open to extra attributes", at, name)
			}
			checkProps(t, name+"[].", *p.Items, specField.props, specField.required)
		case "array<object>":
			if p.Type != "array" || p.Items == nil || p.Items.Type != "object" {
				t.Errorf("%s%s: want an array of objects", at, name)
			}
		default:
			if p.Type != typ {
				t.Errorf("%s%s: type %q, want %q", at, name, p.Type, typ)
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The golden file pins the whole published catalogue (descriptions, bounds, enum), so a
// change to what agents see is a deliberate one: go test -run Golden -update.
func TestCatalogueGolden(t *testing.T) {
	e := newEnv(t)
	res := e.get(t, operatorA, "/api/mcp/tools")
	var body map[string]json.RawMessage
	if err := json.Unmarshal(res.body, &body); err != nil {
		t.Fatal(err)
	}
	var tools any
	_ = json.Unmarshal(body["tools"], &tools)
	pretty, _ := json.MarshalIndent(tools, "", "  ")
	const file = "testdata/catalogue.golden.json"
	if *update {
		if err := os.WriteFile(file, append(pretty, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want any
	_ = json.Unmarshal(golden, &want)
	if !reflect.DeepEqual(tools, want) {
		t.Errorf("catalogue differs from %s; if intended, run go test -run Golden -update\n%s", file, pretty)
	}
}

func TestToolsIsOneFreshList(t *testing.T) {
	a := toolcatalog.Tools()
	a[0].InputSchema.Properties["sourceSystem"].Type = "integer"
	if toolcatalog.Tools()[0].InputSchema.Properties["sourceSystem"].Type != "string" {
		t.Fatal("changing a returned tool changed the catalogue")
	}
}

type listProblem struct {
	Success   bool   `json:"success"`
	Timestamp string `json:"timestamp"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Type      string `json:"type"`
	Title     string `json:"title"`
	Detail    string `json:"detail"`
}

func TestCatalogueRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name   string
		who    caller
		method string
		status int
		code   string
	}{
		{"no identity", anonymous, http.MethodGet, http.StatusUnauthorized, "unauthenticated"},
		{"no operator role", noRoleA, http.MethodGet, http.StatusForbidden, "forbidden"},
		{"wrong method", operatorA, http.MethodPost, http.StatusMethodNotAllowed, "method_not_allowed"},
		// Approvers hold the operator role (identity.HasRole), so they may list the tools.
		{"approver", approverA, http.MethodGet, http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, e.srv.URL+"/api/mcp/tools", nil)
			tc.who.set(req.Header)
			res := do(t, req)
			if tc.status == http.StatusOK {
				if res.status != http.StatusOK {
					t.Errorf("status %d: %s", res.status, res.body)
				}
				return
			}
			if res.status != tc.status || res.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d (%s), want %d problem+json: %s", res.status, res.header.Get("Content-Type"), tc.status, res.body)
			}
			p := decode[listProblem](t, res.body)
			if p.Success || p.Code != tc.code || p.Status != tc.status || p.Type == "" || p.Title == "" || p.Detail == "" {
				t.Errorf("problem %+v", p)
			}
			if _, err := time.Parse(time.RFC3339, p.Timestamp); err != nil {
				t.Errorf("timestamp %q: %v", p.Timestamp, err)
			}
		})
	}
}

type verifier map[string]identity.Principal

func (v verifier) Verify(_ context.Context, token string) (identity.Principal, error) {
	p, ok := v[token]
	if !ok {
		return identity.Principal{}, identity.ErrTokenInvalid
	}
	return p, nil
}

// Behind the service's own authentication chain, the middleware's refusals carry the
// catalogue's failure members too, once the chain is wrapped in ListEnvelope.
func TestListEnvelopeOverTheOperatorChain(t *testing.T) {
	e := newEnv(t)
	v := verifier{"op": {Subject: "user:ana", TenantID: "acme", Roles: []string{identity.RoleOperator}},
		"guest": {Subject: "user:guest", TenantID: "acme"}}
	h := e.cat.ListEnvelope(identity.Authenticate(v, nil, identity.ValidateGuestContext(
		identity.RequireRole(identity.RoleOperator, e.cat.ToolsHandler()))))
	for _, tc := range []struct {
		name, token string
		status      int
		code        string
	}{
		{"no credential", "", http.StatusUnauthorized, "unauthenticated"},
		{"bad credential", "forged", http.StatusUnauthorized, "invalid_token"},
		{"no role", "guest", http.StatusForbidden, "forbidden"},
		{"operator", "op", http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api/mcp/tools", nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if tc.status == http.StatusOK {
				if b := decode[listBody](t, rec.Body.Bytes()); !b.Success || len(b.Tools) != 4 {
					t.Errorf("body %s", rec.Body)
				}
				return
			}
			p := decode[listProblem](t, rec.Body.Bytes())
			if p.Success || p.Code != tc.code || p.Status != tc.status || rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("problem %s", rec.Body)
			}
			if _, err := time.Parse(time.RFC3339, p.Timestamp); err != nil {
				t.Errorf("timestamp %q", p.Timestamp)
			}
		})
	}
}
