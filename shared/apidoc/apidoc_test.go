package apidoc_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
)

type operation struct {
	OperationID string                    `json:"operationId"`
	Security    []map[string][]string     `json:"security"`
	Responses   map[string]map[string]any `json:"responses"`
	Parameters  []map[string]any          `json:"parameters"`
}

type document struct {
	OpenAPI    string                          `json:"openapi"`
	Paths      map[string]map[string]operation `json:"paths"`
	Components struct {
		Schemas   map[string]any `json:"schemas"`
		Responses map[string]any `json:"responses"`
	} `json:"components"`
}

func load(t *testing.T) document {
	t.Helper()
	var d document
	if err := json.Unmarshal(apidoc.Document(), &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", d.OpenAPI)
	}
	return d
}

// openAPIPaths writes a blueprint route's ServeMux path as OpenAPI paths: "{rest...}"
// spans segments, which OpenAPI writes "{rest}"; the console's also serves "/".
func openAPIPaths(r blueprint.Route) []string {
	var out []string
	for _, p := range r.GatewayPaths() {
		out = append(out, strings.ReplaceAll(p, "+}", "}"))
	}
	return out
}

// wantSecurity is the security requirement a route's Auth means in the document.
func wantSecurity(a blueprint.Auth) []string {
	switch a {
	case blueprint.AuthSigned:
		return []string{"webhookSignature"}
	case blueprint.AuthOperator, blueprint.AuthApprover:
		return []string{"bearerAuth", "serviceToken"}
	case blueprint.AuthServiceToken:
		return []string{"serviceToken"}
	case blueprint.AuthAdmin:
		return []string{"bearerAuth"}
	}
	return nil
}

// The document and the route table describe the same routes, with the same security:
// adding a route to one without the other fails here.
func TestDocumentMatchesTheRouteTable(t *testing.T) {
	d := load(t)
	documented := map[string]operation{}
	for path, ops := range d.Paths {
		for method, op := range ops {
			documented[strings.ToUpper(method)+" "+path] = op
		}
	}
	for _, f := range blueprint.HTTPFunctions() {
		for _, p := range openAPIPaths(*f.Route) {
			key := f.Route.Method + " " + p
			op, ok := documented[key]
			if !ok {
				t.Errorf("route %s (%s) is missing from the OpenAPI document", key, f.Name)
				continue
			}
			delete(documented, key)
			var got []string
			for _, req := range op.Security {
				for name := range req {
					got = append(got, name)
				}
			}
			sort.Strings(got)
			want := wantSecurity(f.Route.Auth)
			// The MCP routes take operator JWTs only: embedded contexts cannot call them (Module "").
			if f.Route.Module == "" && f.Route.Auth == blueprint.AuthOperator {
				want = []string{"bearerAuth"}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: security %v, want %v for auth %q", key, got, want, f.Route.Auth)
			}
		}
	}
	delete(documented, "GET "+blueprint.VersionPath) // served through the console's catch-all route
	for key := range documented {
		t.Errorf("the document describes %s, which no blueprint route serves", key)
	}
}

// Every error an operation documents is problem+json, and every $ref resolves.
func TestErrorsAreProblemsAndRefsResolve(t *testing.T) {
	d := load(t)
	for path, ops := range d.Paths {
		for method, op := range ops {
			for status, r := range op.Responses {
				if status[0] < '4' {
					continue
				}
				ref, _ := r["$ref"].(string)
				if !strings.HasPrefix(ref, "#/components/responses/") {
					t.Errorf("%s %s %s: errors use the shared problem+json responses", method, path, status)
				}
			}
		}
	}
	var raw any
	_ = json.Unmarshal(apidoc.Document(), &raw)
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
				var cur any = raw
				for _, p := range parts {
					m, _ := cur.(map[string]any)
					cur = m[p]
				}
				if cur == nil {
					t.Errorf("$ref %s resolves to nothing", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(raw)
}
