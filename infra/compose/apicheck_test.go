package compose_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/apidoc/apicheck"
)

// checkAPI puts every handler test's API (deps.Mux) behind the OpenAPI document: a response
// that breaks it, or a request it calls invalid that the server accepted, fails the test
// (issue 36 §2).
//
// The document's fuzz (FuzzOpenAPI) judges each exchange itself.
func checkAPI(t testing.TB, deps *compose.Stack) {
	t.Helper()
	if _, fuzz := t.(*testing.F); fuzz {
		return
	}
	c, err := apicheck.New()
	if err != nil {
		t.Fatal(err)
	}
	deps.APICheck = c
	t.Cleanup(func() {
		for _, f := range c.Findings() {
			t.Errorf("OpenAPI: %s", f)
		}
	})
}
