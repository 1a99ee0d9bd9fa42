package compose_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/sqsqueue"
)

// listener is a fake CRM that remembers every header value it was sent.
type listener struct {
	*httptest.Server
	mu      sync.Mutex
	headers []string
}

func newListener(t *testing.T) *listener {
	crm := fakesystem.New(connector.SystemCRM)
	crm.Seed("Account", "C-1", map[string]any{"Phone": "+49 40 1"})
	l := &listener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		for _, vs := range r.Header {
			l.headers = append(l.headers, vs...)
		}
		l.mu.Unlock()
		crm.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(l.Close)
	return l
}

// sent reports whether any request carried text in a header, and how many header values
// came in all.
func (l *listener) sent(text string) (found bool, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.headers {
		found = found || strings.Contains(h, text)
	}
	return found, len(l.headers)
}

// A credential follows its address: moving a connector's base URL or token URL without
// giving a credential deletes the stored one, so nothing reaches the new address with it.
func TestMovingAConnectorDropsItsCredential(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	e.deps.Tokens = identitytest.RoleTokens{}
	api, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	call := func(method, path, body string) *httptest.ResponseRecorder {
		return serve(api, "admin@demo", method, path, body)
	}
	// read reads the CRM account as a flow run would, in a fresh process's wiring: the
	// connector registry keeps a built client for a minute, which would hide the change.
	read := func() {
		t.Helper()
		deps, err := compose.Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c, err := guarded.Connectors(deps.Base).Client(context.Background(), "demo", connector.SystemCRM)
		if err == nil {
			_, err = c.Get(context.Background(), "Account", "C-1")
		}
		t.Logf("read through the connector: %v", err) // without a credential the vendor may refuse; what was sent is the point
	}
	old, moved := newListener(t), newListener(t)
	const secret = "old-credential-only-for-the-old-address"

	if w := call("PATCH", "/api/settings", `{"connectors": {"crm": {"baseUrl": "`+old.URL+`", "token": "`+secret+`"}}}`); w.Code != http.StatusOK {
		t.Fatalf("configure: %d %s", w.Code, w.Body)
	}
	read()
	if found, _ := old.sent(secret); !found {
		t.Fatal("the connector did not send its credential to its own address: the listener cannot tell")
	}

	w := call("PATCH", "/api/settings", `{"connectors": {"crm": {"baseUrl": "`+moved.URL+`"}}}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"credentialsCleared":["crm"]`) ||
		!strings.Contains(w.Body.String(), `"hasToken":false`) {
		t.Fatalf("move: %d %s", w.Code, w.Body)
	}
	if w := call("GET", "/api/settings", ""); !strings.Contains(w.Body.String(), `"hasToken":false`) || strings.Contains(w.Body.String(), "credentialsCleared") {
		t.Fatalf("settings after the move: %s", w.Body)
	}
	read()
	// The read reached the new address (so the check below sees what it was sent) …
	if found, n := moved.sent(secret); found || n == 0 {
		t.Fatalf("the new address got %d headers, the old credential among them: %v", n, found)
	}
	page, err := e.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo", ActionType: audit.TypeSettings,
		From: time.Unix(0, 0), To: time.Now().Add(time.Hour), Limit: 10})
	audited := 0
	for _, r := range page.Records {
		if strings.Contains(string(r.Details), `"credentialsCleared":["crm"]`) {
			audited++
		}
	}
	if err != nil || len(page.Records) != 2 || audited != 1 {
		t.Fatalf("audit %v: %d records, %d say the credential was cleared", err, len(page.Records), audited)
	}

	// A move that brings its own credential keeps it; so does a change that moves nothing.
	if w := call("PATCH", "/api/settings", `{"connectors": {"crm": {"baseUrl": "`+moved.URL+`", "token": "new-credential"}}}`); strings.Contains(w.Body.String(), "credentialsCleared") {
		t.Fatalf("move with a credential: %s", w.Body)
	}
	if w := call("PATCH", "/api/settings", `{"connectors": {"crm": {"baseUrl": "`+moved.URL+`"}}}`); !strings.Contains(w.Body.String(), `"hasToken":true`) {
		t.Fatalf("unmoved: %s", w.Body)
	}
	read()
	if found, _ := moved.sent("new-credential"); !found {
		t.Fatal("the new credential did not reach the new address")
	}
	// The token URL is an address the credential goes to as well.
	w = call("PATCH", "/api/settings", `{"connectors": {"crm": {"baseUrl": "`+moved.URL+`", "tokenUrl": "`+old.URL+`/token"}}}`)
	if !strings.Contains(w.Body.String(), `"credentialsCleared":["crm"]`) || !strings.Contains(w.Body.String(), `"hasToken":false`) {
		t.Fatalf("token URL move: %d %s", w.Code, w.Body)
	}
}
