package wire

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// oneHost is the host ERP connector of every tenant: a NetSuite fake.
type oneHost struct{ c *connector.Client }

func (h oneHost) Client(context.Context, string, connector.System) (*connector.Client, error) {
	return h.c, nil
}

// guardHost gives the guard the same client to write with.
type guardHost struct{ c *connector.Client }

func (h guardHost) Client(context.Context, string, connector.System) (governance.Writer, error) {
	return h.c, nil
}

// An outbound error to a system the service has no connector for is retried by the host
// ERP: the first attempt ticks the request on the sync error's NetSuite record, the next
// reads the retry script's answer from it.
func TestRetryOfAnUnconnectedSystemIsAskedOfTheHostERP(t *testing.T) {
	fake := fakesystem.New(connector.SystemHostERP)
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	client, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP,
		BaseURL: srv.URL + fakesystem.BasePath(connector.SystemHostERP)})
	if err != nil {
		t.Fatal(err)
	}
	const entity = "customrecord_sea_sync_error"
	fake.Seed(entity, "7", map[string]any{"custrecord_sea_error_id": "WS-1"})
	f := newFixture(t)
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    f.ledger, Records: &governancetest.Store{}, Connectors: guardHost{client}, Scanner: dlp.NewScanner(),
		Audit: f.op.Audit.(*audit.Log), Now: time.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	d := deliverer{guard: g, hosts: oneHost{client}}
	rec := syncerrortest.SampleRecord("acme", "WS-1")
	rec.Direction, rec.ExternalSystem = "outbound", "webshop"
	rec.Context = json.RawMessage(`{"source":"netsuite","hostRecord":{"type":"` + entity + `","id":"7"}}`)
	c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "wh", t0)
	if d.Target(c) != "webshop" {
		t.Fatalf("target %q", d.Target(c))
	}
	ctx := context.Background()
	got := d.Redeliver(ctx, "alice", c, map[string]any{"shipcountry": "DE"}, "k1")
	if got.Result != syncerror.DeliveryRequested {
		t.Fatalf("first attempt %+v", got)
	}
	stored, err := client.Get(ctx, entity, "7")
	if err != nil || stored.Fields[HostRetryRequested] != true || stored.Fields[HostRetryStatus] != "requested" {
		t.Fatalf("the request on the host record %+v err=%v", stored.Fields, err)
	}
	if got := d.Redeliver(ctx, "alice", c, nil, "k1"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("before the script ran %+v", got)
	}
	// The retry script ran and failed; then (a later request) succeeded.
	fake.Seed(entity, "7", map[string]any{HostRetryRequested: false, HostRetryStatus: "failed", HostRetryResult: "RCRD_DSNT_EXIST: no salesorder"})
	if got := d.Redeliver(ctx, "alice", c, nil, "k1"); got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FAILED_AT_HOST" {
		t.Fatalf("after a failed re-run %+v", got)
	}
	if got := d.Redeliver(ctx, "alice", c, nil, "k2"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("a retry after a failed re-run asks again: %+v", got)
	}
	fake.Seed(entity, "7", map[string]any{HostRetryRequested: false, HostRetryStatus: "succeeded"})
	if got := d.Redeliver(ctx, "alice", c, nil, "k1"); got.Result != syncerror.Delivered {
		t.Fatalf("after a re-run %+v", got)
	}
	// An error that names no host record cannot be asked for.
	c.Record.Context = nil
	if got := d.Redeliver(ctx, "alice", c, nil, "k1"); got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_NO_ROUTE" {
		t.Fatalf("no host record %+v", got)
	}
}
