package sessiontest

// The suite's clock and fixture: a session service over a store under test (contract.go runs
// the cases on it).

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Backend is a session.Store under test, with a way to see everything it holds.
type Backend struct {
	Store session.Store
	// Dump returns every stored record as text, keys and values included; the suite
	// asserts that no service token ever appears in it.
	Dump func(t *testing.T) []string
}

// Clock is a settable clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Fixture is a session.Service over a backend, with in-memory tenants and audit log.
type Fixture struct {
	Service *session.Service
	Clock   *Clock
	Tenants *tenanttest.Store
	Audit   *audittest.Store
}

// WebhookSecret is every fixture tenant's embedded secret, which signs host bootstraps.
const WebhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// IngestSecret is the fixture tenants' webhook (ingest) secret: it must not open sessions.
const IngestSecret = "whsec_aW5nZXN0LW9ubHktc2VjcmV0LW5vdC1mb3ItYm9vdHN0cmFw"

// NewFixture returns a service over store at a fixed time, with tenants "acme" and
// "globex" allowing operator and approver, and "initech" allowing nothing, all signing
// with WebhookSecret.
func NewFixture(t testing.TB, store session.Store) *Fixture {
	t.Helper()
	f := &Fixture{Clock: NewClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)), Tenants: tenanttest.NewStore(),
		Audit: &audittest.Store{}}
	for id, allowed := range map[string]string{"acme": "operator, approver", "globex": "operator,approver", "initech": ""} {
		if err := f.Tenants.Create(context.Background(), tenant.Config{ID: id,
			Settings:        map[string]string{session.SettingAllowedRoles: allowed},
			WebhookSecrets:  []tenant.Secret{{Value: IngestSecret, CreatedAt: f.Clock.Now().Add(-time.Hour)}},
			EmbeddedSecrets: []tenant.Secret{{Value: WebhookSecret, CreatedAt: f.Clock.Now().Add(-time.Hour)}}}); err != nil {
			t.Fatal(err)
		}
	}
	f.Service = &session.Service{Store: store, Tenants: f.Tenants,
		Audit: &audit.Log{Store: f.Audit, Redactor: passRedactor{}, Now: f.Clock.Now}, Now: f.Clock.Now,
		Auth: &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeEmbedded), Tenants: tenant.Directory{Reader: f.Tenants}, Verifier: webhook.Verifier{Now: f.Clock.Now}, Now: f.Clock.Now}}
	return f
}

// passRedactor stands in for DLP: the tests assert on what the service itself puts in
// audit details.
type passRedactor struct{}

func (passRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return doc, nil }

var requestSeq struct {
	mu sync.Mutex
	n  int
}

// Bootstrap opens a session for user in tenantID with roles, with a fresh request id.
func (f *Fixture) Bootstrap(t testing.TB, tenantID, user string, roles ...string) session.Issued {
	t.Helper()
	cfg, err := f.Tenants.Get(context.Background(), tenantID)
	if err != nil {
		t.Fatal(err)
	}
	requestSeq.mu.Lock()
	requestSeq.n++
	id := fmt.Sprintf("msg_test_%d", requestSeq.n)
	requestSeq.mu.Unlock()
	issued, err := f.Service.Bootstrap(context.Background(), cfg, id,
		session.BootstrapRequest{UserID: user, HostAccountID: "host-" + user, Roles: roles})
	if err != nil {
		t.Fatalf("bootstrap %s/%s: %v", tenantID, user, err)
	}
	return issued
}

// OpenContext opens a context for module with token.
func (f *Fixture) OpenContext(t testing.TB, token, module string) session.OpenedContext {
	t.Helper()
	c, err := f.Service.OpenContext(context.Background(), token, module)
	if err != nil {
		t.Fatalf("open context %s: %v", module, err)
	}
	return c
}

// AuditOf returns the audit records with action key key, oldest first.
func (f *Fixture) AuditOf(key string) []audit.Record {
	var out []audit.Record
	for _, r := range f.Audit.All() {
		if r.ActionKey == key {
			out = append(out, r)
		}
	}
	return out
}
