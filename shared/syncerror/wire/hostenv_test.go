package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/retries"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// hostEnv is the retry against the systems as they answer over HTTP: a NetSuite fake as
// the host ERP and a Salesforce fake as the CRM, the real guard writing to both, and the
// approve fixture's store, ledger and audit.
type hostEnv struct {
	*fixture
	host, crm *fakesystem.Server
	clients   clientSet
	// down makes the host ERP answer every request with this status while it is set;
	// downOn, when set, keeps the outage to the requests for that record type's records.
	down   atomic.Int32
	downOn atomic.Value
	guard  *governance.Guard
	rt     *retries.Retrier
	syncN  int
}

// hostSyncErrors is the host ERP's sync-error record type.
const hostSyncErrors = "customrecord_sea_sync_error"

// clientSet opens the fakes' connectors; a system without one is not configured.
type clientSet map[connector.System]*connector.Client

func (s clientSet) Client(_ context.Context, _ string, sys connector.System) (*connector.Client, error) {
	if c, ok := s[sys]; ok {
		return c, nil
	}
	return nil, connector.ErrNotConfigured
}

// guardClients gives the guard the same clients to write with.
type guardClients struct{ s clientSet }

func (g guardClients) Client(ctx context.Context, tenantID string, sys connector.System) (governance.Writer, error) {
	c, err := g.s.Client(ctx, tenantID, sys)
	if err != nil {
		return nil, governance.ErrNotConfigured
	}
	return c, nil
}

func newHostEnv(t *testing.T) *hostEnv {
	t.Helper()
	e := &hostEnv{fixture: newFixture(t), host: fakesystem.New(connector.SystemHostERP), crm: fakesystem.New(connector.SystemCRM),
		clients: clientSet{}}
	for _, fake := range []*fakesystem.Server{e.host, e.crm} {
		var h http.Handler = fake.Handler()
		if fake == e.host {
			h = e.outage(h)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		c, err := connector.New(connector.Config{AllowLoopback: true, System: fake.System(), MaxAttempts: 1,
			BaseURL: srv.URL + fakesystem.BasePath(fake.System())})
		if err != nil {
			t.Fatal(err)
		}
		e.clients[fake.System()] = c
	}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    e.ledger, Records: &governancetest.Store{}, Connectors: guardClients{e.clients}, Scanner: dlp.NewScanner(),
		Audit: e.op.Audit.(*audit.Log), Now: func() time.Time { return e.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.guard = g
	e.rt = &retries.Retrier{Claims: e.claims, Deliver: deliverer{guard: g, hosts: e.clients, ledger: e.ledger, audits: e.op.Audit.(*audit.Log)}, Audit: e.op.Audit,
		Schedule: []time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour}, Jitter: func(d time.Duration) time.Duration { return d },
		Now: func() time.Time { return e.now }}
	e.op.Retries = e.rt
	return e
}

// outage answers as NetSuite does when it refuses (the status while down is set).
func (e *hostEnv) outage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := int(e.down.Load())
		if only, _ := e.downOn.Load().(string); only != "" && !strings.Contains(r.URL.Path, "/"+only+"/") {
			st = 0
		}
		if st == 0 {
			next.ServeHTTP(w, r)
			return
		}
		code := map[int]string{403: "INSUFFICIENT_PERMISSION", 429: "CONCURRENCY_LIMIT_EXCEEDED"}[st]
		if code == "" {
			code = "SERVICE_UNAVAILABLE"
		}
		if st == 429 {
			w.Header().Set("Retry-After", "7200")
		}
		w.Header().Set("Content-Type", "application/vnd.oracle.resource+json; type=error")
		w.WriteHeader(st)
		_, _ = w.Write([]byte(`{"title":"refused","status":` + strconv.Itoa(st) + `,"o:errorDetails":[{"detail":"refused","o:errorCode":"` + code + `"}]}`))
	})
}

// hostError claims a sync error as the ingest does (the host ERP's, signed), names the
// host's sync-error record it came from (seeded on the fake) unless edit removes it, and
// diagnoses it with class, planned as the worker plans it.
func (e *hostEnv) hostError(t *testing.T, errorID, class string, edit func(*syncerror.Record)) syncerror.Claim {
	t.Helper()
	e.syncN++
	id := strconv.Itoa(e.syncN)
	e.host.Seed(hostSyncErrors, id, map[string]any{"custrecord_sea_error_id": errorID})
	rec := syncerrortest.SampleRecord("acme", errorID)
	rec.Context = json.RawMessage(`{"source":"netsuite","hostRecord":{"type":"` + hostSyncErrors + `","id":"` + id + `"}}`)
	if edit != nil {
		edit(&rec)
	}
	return e.claimDiagnosed(t, syncerror.NewClaim(rec, syncerror.SourceWebhook, "wh-1", e.now), class)
}

func (e *hostEnv) claimDiagnosed(t *testing.T, c syncerror.Claim, class string) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	if _, err := e.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	held, err := e.claims.BeginDiagnosis(ctx, "acme", c.ID, e.now, e.now)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-1", e.now)
	p.Class = class
	if err := e.claims.CompleteDiagnosis(ctx, "acme", c.ID, held.DiagnosisAttempts, p, e.now); err != nil {
		t.Fatal(err)
	}
	if err := e.rt.Plan(ctx, held, p); err != nil {
		t.Fatal(err)
	}
	return e.row(t, c.ID)
}

// hostSyncError is the id of the host's sync-error record c names.
func hostSyncError(c syncerror.Claim) string {
	_, id := hostRecord(c)
	return id
}

// script plays the host ERP's scheduled retry script for c's record: it re-ran the sync
// and answers status.
func (e *hostEnv) script(c syncerror.Claim, status, result string) {
	e.host.Seed(hostSyncErrors, hostSyncError(c), map[string]any{HostRetryRequested: false, HostRetryStatus: status, HostRetryResult: result})
}

// due moves the clock to the row's next attempt and runs the schedule.
func (e *hostEnv) due(t *testing.T, id string) syncerror.Claim {
	t.Helper()
	e.now = e.row(t, id).Retry.NextAt
	if _, err := e.rt.RunDue(context.Background(), "acme"); err != nil {
		t.Fatal(err)
	}
	return e.row(t, id)
}

// writesTo lists the fake's applied writes to entity.
func writesTo(fake *fakesystem.Server, entity string) []fakesystem.AppliedWrite {
	var out []fakesystem.AppliedWrite
	for _, w := range fake.Writes() {
		if w.Entity == entity {
			out = append(out, w)
		}
	}
	return out
}

func actions(c syncerror.Claim) []string {
	var out []string
	for _, h := range c.History {
		out = append(out, h.Action)
	}
	return out
}
