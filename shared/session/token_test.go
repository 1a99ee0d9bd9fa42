package session_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/tenant"
)

// longestCommon returns the length of the longest common substring of a and b.
func longestCommon(a, b string) int {
	best := 0
	prev := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			}
		}
		prev = cur
	}
	return best
}

func TestTokensAndIdsAreRandomAndUnrelated(t *testing.T) {
	e := newEnv(t)
	scanner := dlp.NewScanner()
	seen := map[string]bool{}
	const n = 40
	for i := 0; i < n; i++ {
		issued := e.issue(t, "acme", "alice", "operator")
		c := e.openContext(t, issued.ServiceToken, session.ModuleAudit)
		if !tokenShape.MatchString(issued.ServiceToken) || !strings.HasPrefix(issued.SessionID, "ses_") || len(issued.SessionID) != 26 ||
			!strings.HasPrefix(c.EmbeddedContextID, "ctx_") || len(c.EmbeddedContextID) != 26 {
			t.Fatalf("shapes: token %q session %q context %q", issued.ServiceToken, issued.SessionID, c.EmbeddedContextID)
		}
		secret := issued.ServiceToken[len("sat_acme_"):]
		for _, id := range []string{issued.SessionID, c.EmbeddedContextID} {
			// 5 characters in common by chance has odds of about 1 in 10^5 per pair.
			if l := longestCommon(id[4:], secret); l >= 5 {
				t.Fatalf("id %q shares %d characters with its token", id, l)
			}
		}
		for _, v := range []string{issued.ServiceToken, issued.SessionID, c.EmbeddedContextID} {
			if seen[v] {
				t.Fatalf("%q issued twice", v)
			}
			seen[v] = true
		}
		// DLP (and so the audit log, AI prompts and connector writes) recognises the token
		// on its own and inside text.
		for _, text := range []string{issued.ServiceToken, "sidecar configured with " + issued.ServiceToken + ", retrying"} {
			res, err := scanner.ScanText(dlp.Record, text)
			if err != nil || res.Counts()[dlp.TypeAPIKey] != 1 || strings.Contains(string(res.Output), secret) {
				t.Fatalf("DLP on %q: %+v err=%v, want one api_key, redacted", text, res.Findings, err)
			}
		}
	}
}

func TestTokenOfALongTenantID(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("a", 30) + "_-" + strings.Repeat("9", 31)
	if !tenant.ValidID(long) {
		t.Fatal("test tenant id is not valid")
	}
	if err := e.Tenants.Create(t.Context(), tenant.Config{ID: long, Settings: map[string]string{session.SettingAllowedRoles: "operator"}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := e.Tenants.Get(t.Context(), long)
	issued, err := e.Service.Bootstrap(t.Context(), cfg, "msg_long", session.BootstrapRequest{UserID: "u", HostAccountID: "h", Roles: []string{"operator"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(issued.ServiceToken, "sat_"+long+"_") {
		t.Fatalf("token %q", issued.ServiceToken)
	}
	c, err := e.Service.OpenContext(t.Context(), issued.ServiceToken, session.ModuleSettings)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := e.Service.Resolve(t.Context(), issued.ServiceToken, c.EmbeddedContextID); err != nil || p.TenantID != long {
		t.Fatalf("resolve %+v err=%v", p, err)
	}
}

func TestBootstrapNeedsARequestID(t *testing.T) {
	e := newEnv(t)
	cfg, _ := e.Tenants.Get(t.Context(), "acme")
	_, err := e.Service.Bootstrap(t.Context(), cfg, "", session.BootstrapRequest{UserID: "u", HostAccountID: "h", Roles: []string{"operator"}})
	if err == nil {
		t.Fatal("bootstrap without a request id succeeded")
	}
	e.nothingStored(t)
}

func TestModulesAreNamedOnce(t *testing.T) {
	if len(session.Modules) != 7 {
		t.Fatalf("%d modules, want the seven of the architecture", len(session.Modules))
	}
	for _, m := range session.Modules {
		if !session.KnownModule(m) {
			t.Fatalf("%q unknown", m)
		}
	}
	if session.KnownModule("") || session.KnownModule("AUDIT") {
		t.Fatal("empty or differently cased module accepted")
	}
	// Every blueprint route that declares a module declares a real one.
	for _, f := range blueprint.Functions {
		if f.Route != nil && f.Route.Module != "" && !session.KnownModule(f.Route.Module) {
			t.Errorf("function %s: route module %q is not one of %v", f.Name, f.Route.Module, session.Modules)
		}
	}
}

func TestBlueprintDeclaresTheEmbeddedSurface(t *testing.T) {
	want := map[string]blueprint.Route{
		blueprint.FuncEmbeddedHostBootstrap:    {Method: http.MethodPost, Path: "/api/embedded/host/bootstrap", Auth: blueprint.AuthSigned},
		blueprint.FuncEmbeddedContextBootstrap: {Method: http.MethodPost, Path: "/api/embedded/context/bootstrap", Auth: blueprint.AuthServiceToken},
		blueprint.FuncEmbeddedSessionDelete:    {Method: http.MethodDelete, Path: "/api/embedded/session", Auth: blueprint.AuthServiceToken},
	}
	for _, f := range blueprint.Functions {
		grants := map[string]blueprint.Access{}
		for _, g := range f.Tables {
			grants[g.Table.Name] = g.Access
		}
		if r, ok := want[f.Name]; ok {
			if f.Route == nil || *f.Route != r || grants[blueprint.TableEmbeddedSessions] != blueprint.ReadWrite {
				t.Errorf("%s: route %+v grants %v", f.Name, f.Route, grants)
			}
			delete(want, f.Name)
		}
		if f.Name == blueprint.FuncSessionReaper && (f.Schedule <= 0 || f.Schedule > 24*time.Hour ||
			grants[blueprint.TableEmbeddedSessions] != blueprint.ReadWrite || grants[blueprint.TableTenants] != blueprint.Read) {
			t.Errorf("reaper: schedule %v grants %v", f.Schedule, grants)
		}
		// A route that resolves embedded contexts must be able to read them.
		if f.Route != nil && (f.Route.Auth == blueprint.AuthOperator || f.Route.Auth == blueprint.AuthApprover) &&
			grants[blueprint.TableEmbeddedSessions] == 0 {
			t.Errorf("%s: %s route without read access to %s", f.Name, f.Route.Auth, blueprint.TableEmbeddedSessions)
		}
	}
	if len(want) != 0 {
		t.Errorf("missing functions %v", want)
	}
	if blueprint.EmbeddedSessions.TTLAttribute != "expires_at" || blueprint.EmbeddedSessions.PartitionKey.Name != "tenant_id" {
		t.Errorf("table %+v", blueprint.EmbeddedSessions)
	}
}

type failingLister struct{}

func (failingLister) List(context.Context) ([]tenant.Config, error) {
	return nil, errors.New("tenant table unavailable")
}

func TestReapFailures(t *testing.T) {
	e := newEnv(t)
	e.issue(t, "acme", "alice", "operator")
	e.Clock.Advance(9 * time.Hour)

	lister := e.Service.Tenants
	e.Service.Tenants = failingLister{}
	if _, err := e.Service.Reap(t.Context()); err == nil {
		t.Fatal("reap without tenants succeeded")
	}
	e.Service.Tenants = lister

	// A lost audit record is counted as an error; the records stay reaped and are not
	// counted again.
	e.Service.Audit = failingAuditor{}
	rep, err := e.Service.Reap(t.Context())
	if err != nil || rep.Tokens != 1 || rep.Requests != 1 || rep.Errors != 1 {
		t.Fatalf("report %+v err=%v", rep, err)
	}
	if rep, _ := e.Service.Reap(t.Context()); rep.Tokens+rep.Contexts+rep.Requests != 0 {
		t.Fatalf("second run %+v, want nothing", rep)
	}
}
