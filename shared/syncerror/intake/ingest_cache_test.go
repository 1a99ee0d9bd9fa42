package intake_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
)

// With the tenant cache in front, what would refuse a request is re-read at once: a new
// secret and a flag turned on work immediately; a flag turned off takes at most the TTL.
func TestIngestWithTenantCache(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	now := clock
	cache := &tenant.Cache{Store: f.tenants, TTL: time.Minute, Now: func() time.Time { return now }}
	f.handler = httpapi.Instrument(discardLogger(), &intake.Ingest{Auth: fixedAuth(cache, func() time.Time { return now }), Claims: f.claims, Queue: f.queue,
		Now: func() time.Time { return now }})
	admin := tenant.Admin{Store: f.tenants, Now: func() time.Time { return now }}
	post := func(tenantID, secret, errorID string) int {
		return f.do(t, req{tenant: tenantID, secret: secret, at: now, body: body(tenantID, errorID)}).Code
	}

	if code := post("acme", secretCurrent, "E-1"); code != http.StatusAccepted {
		t.Fatalf("warm: %d", code)
	}
	rotated, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if code := post("acme", rotated, "E-2"); code != http.StatusAccepted {
		t.Fatalf("just-rotated secret: %d, want 202 at once", code)
	}
	if code := post("off-enabled", secretCurrent, "E-3"); code != http.StatusForbidden {
		t.Fatalf("disabled tenant: %d", code)
	}
	if err := admin.Set(ctx, "off-enabled", tenant.KeyEnabled, "true"); err != nil {
		t.Fatal(err)
	}
	if code := post("off-enabled", secretCurrent, "E-4"); code != http.StatusAccepted {
		t.Fatalf("just-enabled tenant: %d, want 202 at once", code)
	}
	if err := admin.Set(ctx, "off-enabled", tenant.KeyWebhookEnabled, "false"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if code := post("off-enabled", secretCurrent, "E-5"); code != http.StatusForbidden {
		t.Fatalf("disabled one TTL ago: %d, want 403", code)
	}
}

// countingTenants counts the reads that reach the store.
type countingTenants struct {
	tenant.Reader
	n atomic.Int64
}

func (c *countingTenants) Get(ctx context.Context, id string) (tenant.Config, error) {
	c.n.Add(1)
	return c.Reader.Get(ctx, id)
}

// A flood of bad signatures does not force a store read each: the cache is bypassed at
// most once per second per tenant; the next second may look again (a rotation).
func TestBadSignatureFloodReadsTheTenantOncePerInterval(t *testing.T) {
	f := newFixture(t)
	now := clock
	store := &countingTenants{Reader: f.tenants}
	cache := &tenant.Cache{Store: store, TTL: time.Minute, Now: func() time.Time { return now }}
	f.handler = httpapi.Instrument(discardLogger(), &intake.Ingest{Auth: fixedAuth(cache, func() time.Time { return now }),
		Claims: f.claims, Queue: f.queue, Now: func() time.Time { return now }})
	forged := "whsec_" + base64.StdEncoding.EncodeToString([]byte("not-the-tenant-secret-0123456789"))
	for i := range 100 {
		if code := f.do(t, req{tenant: "acme", secret: forged, at: now, body: body("acme", fmt.Sprint("F-", i))}).Code; code != http.StatusUnauthorized {
			t.Fatalf("forged request %d: %d", i, code)
		}
	}
	if n := store.n.Load(); n > 2 {
		t.Fatalf("%d store reads for 100 forged requests in one second, want at most 2", n)
	}
	now = now.Add(2 * time.Second)
	before := store.n.Load()
	f.do(t, req{tenant: "acme", secret: forged, at: now, body: body("acme", "F-late")})
	if store.n.Load() != before+1 {
		t.Fatalf("a later forged request did not look again: %d → %d", before, store.n.Load())
	}
}
