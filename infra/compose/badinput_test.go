package compose_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// No default acts on bad input (issue 36): every mutating route an operator, approver or
// admin reaches whose body the OpenAPI document requires is sent no body, null, {} and []
// with the role it needs, its path naming a real row where it names one. None succeeds
// (no 2xx) and none fails (no 5xx); nothing is audited as a success; the settings and the
// approval policy read back unchanged. Routes whose body the document makes optional
// (retry, approve as proposed, revert) are actions without fields and are logged, not
// sent. Signed and service-token routes verify a signature or token over the body first:
// an unsigned body never reaches them (their own tests cover their validation).
func TestMutatingRoutesActOnNoBadInput(t *testing.T) {
	f := newFlow(t)
	id := f.diagnosed(t)
	token := map[blueprint.Auth]string{blueprint.AuthOperator: operator, blueprint.AuthApprover: approver, blueprint.AuthAdmin: "admin@demo"}
	param := regexp.MustCompile(`\{[^}]+\}`)
	read := func() string {
		return f.call(t, "admin@demo", "GET", "/api/settings", "").Body.String() +
			f.call(t, "admin@demo", "GET", "/api/settings/approval-policy", "").Body.String()
	}
	successes := func() int {
		n := 0
		for _, typ := range []string{audit.TypeSettings, "syncerror", "governance", "flow", "finance"} {
			for _, r := range f.audits(t, typ) {
				if r.Result == audit.ResultSuccess {
					n++
				}
			}
		}
		return n
	}
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.Document())
	if err != nil {
		t.Fatal(err)
	}
	bodyRequired := func(method, path string) bool {
		item := doc.Paths.Find(strings.TrimSuffix(strings.ReplaceAll(path, "...}", "}"), "/"))
		if item == nil {
			t.Logf("%s %s is not in the document (its contract test reports it); not sent", method, path)
			return false
		}
		op := item.GetOperation(method)
		return op != nil && op.RequestBody != nil && op.RequestBody.Value != nil && op.RequestBody.Value.Required
	}
	before, audited := read(), successes()
	routes := 0
	for _, fn := range blueprint.HTTPFunctions() {
		rt := fn.Route
		who, ok := token[rt.Auth]
		if !ok || (rt.Method != "POST" && rt.Method != "PUT" && rt.Method != "PATCH") {
			continue
		}
		if !bodyRequired(rt.Method, rt.Path) {
			t.Logf("%s %s: its body is optional (an action without fields); not sent", rt.Method, rt.Path)
			continue
		}
		routes++
		path := param.ReplaceAllStringFunc(rt.Path, func(p string) string {
			if strings.Contains(rt.Path, "/proposals/") {
				return id
			}
			return "unknown-1"
		})
		for _, body := range []string{"", "null", "{}", "[]"} {
			w := f.call(t, who, rt.Method, path, body)
			if w.Code < 400 || w.Code >= 500 {
				t.Errorf("%s %s with %q = %d %s, want a 4xx", rt.Method, path, body, w.Code, w.Body)
			}
		}
	}
	if routes < 10 {
		t.Fatalf("only %d mutating routes found", routes)
	}
	if after := read(); after != before {
		t.Errorf("settings or policy changed:\n%s\n%s", before, after)
	}
	if n := successes(); n != audited {
		t.Errorf("%d success entries audited for refused bodies", n-audited)
	}
}
