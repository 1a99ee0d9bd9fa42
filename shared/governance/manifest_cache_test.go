package governance_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

// countingOverrides counts the reads of the overrides.
type countingOverrides struct {
	mem   governancetest.Overrides
	reads atomic.Int64
}

func (c *countingOverrides) Overrides(ctx context.Context, tenant string) ([]governance.Entry, error) {
	c.reads.Add(1)
	return c.mem.Overrides(ctx, tenant)
}

func (c *countingOverrides) PutOverrides(ctx context.Context, tenant string, entries []governance.Entry) error {
	return c.mem.PutOverrides(ctx, tenant, entries)
}

// A warm guard reads a tenant's overrides once per TTL, sees a change made in its own
// process at once, and one made elsewhere after TTL.
func TestCachedManifestsReadsOncePerTTLAndSeesChanges(t *testing.T) {
	store := &countingOverrides{}
	source := &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: store}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	c := governance.NewCachedManifests(source, 10*time.Second, func() time.Time { return now })
	ctx := context.Background()
	owner := func() connector.System {
		t.Helper()
		m, err := c.Manifest(ctx, "t1")
		if err != nil {
			t.Fatal(err)
		}
		e, _ := m.Owner("customer", "phone")
		return e.Owner
	}
	for range 3 {
		if got := owner(); got != connector.SystemCRM {
			t.Fatalf("default owner %s", got)
		}
	}
	if n := store.reads.Load(); n != 1 {
		t.Fatalf("%d reads of the overrides for 3 manifests within the TTL, want 1", n)
	}
	// Changed in this process: seen at once.
	if err := source.SetOverrides(ctx, "t1", []governance.Entry{{Entity: "customer", Field: "phone",
		Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}}); err != nil {
		t.Fatal(err)
	}
	if got := owner(); got != connector.SystemHostERP {
		t.Fatalf("owner after SetOverrides in this process: %s", got)
	}
	// Changed by another process (straight into the store): seen once the TTL passed.
	_ = store.PutOverrides(ctx, "t1", nil)
	if got := owner(); got != connector.SystemHostERP {
		t.Fatalf("the cache was not used within the TTL: %s", got)
	}
	now = now.Add(11 * time.Second)
	if got := owner(); got != connector.SystemCRM {
		t.Fatalf("owner after the TTL: %s", got)
	}
}
