package tenant_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

type countingReader struct {
	tenant.Reader
	reads int
	fail  error
}

func (c *countingReader) Get(ctx context.Context, id string) (tenant.Config, error) {
	c.reads++
	if c.fail != nil {
		return tenant.Config{}, c.fail
	}
	return c.Reader.Get(ctx, id)
}

func TestCacheServesWithinTTLAndRereadsAfter(t *testing.T) {
	ctx := context.Background()
	store := tenanttest.NewStore()
	if err := store.Create(ctx, tenant.Config{ID: "acme", Settings: map[string]string{tenant.KeyEnabled: "true"}}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	src := &countingReader{Reader: store}
	c := &tenant.Cache{Store: src, TTL: 10 * time.Second, Now: func() time.Time { return now }}
	for i := 0; i < 3; i++ {
		if cfg, err := c.Get(ctx, "acme"); err != nil || !cfg.Flag(tenant.KeyEnabled) {
			t.Fatalf("get: %+v %v", cfg, err)
		}
	}
	if _, err := c.Get(ctx, "ghost"); !errors.Is(err, tenant.ErrNotFound) {
		t.Fatalf("unknown tenant: %v", err)
	}
	if _, err := c.Get(ctx, "ghost"); !errors.Is(err, tenant.ErrNotFound) {
		t.Fatalf("unknown tenant, cached: %v", err)
	}
	if src.reads != 2 {
		t.Fatalf("%d store reads within the TTL, want 2 (one per id)", src.reads)
	}
	now = now.Add(10 * time.Second)
	if _, err := c.Get(ctx, "acme"); err != nil || src.reads != 3 {
		t.Fatalf("after TTL: reads=%d err=%v, want a fresh read", src.reads, err)
	}
	if _, err := c.Refresh(ctx, "acme"); err != nil || src.reads != 4 {
		t.Fatalf("refresh: reads=%d err=%v", src.reads, err)
	}
}

func TestCacheDoesNotCacheStoreFailures(t *testing.T) {
	ctx := context.Background()
	store := tenanttest.NewStore()
	if err := store.Create(ctx, tenant.Config{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	src := &countingReader{Reader: store, fail: errors.New("throttled")}
	c := &tenant.Cache{Store: src, TTL: time.Minute}
	if _, err := c.Get(ctx, "acme"); err == nil {
		t.Fatal("want the store error")
	}
	src.fail = nil
	if _, err := c.Get(ctx, "acme"); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

// Unknown ids live in a negative cache of their own: a flood of them stays within its
// bound and evicts no real tenant, which keeps being served without a read.
func TestNegativeCacheIsBoundedAndSeparate(t *testing.T) {
	ctx := context.Background()
	store := tenanttest.NewStore()
	if err := store.Create(ctx, tenant.Config{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	src := &countingReader{Reader: store}
	c := &tenant.Cache{Store: src, TTL: time.Hour, MaxTenants: 10, MaxUnknown: 100}
	if _, err := c.Get(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if _, err := c.Get(ctx, fmt.Sprintf("ghost-%d", i)); !errors.Is(err, tenant.ErrNotFound) {
			t.Fatalf("ghost: %v", err)
		}
	}
	reads := src.reads
	if _, cached, err := c.Lookup(ctx, "acme"); err != nil || !cached || src.reads != reads {
		t.Fatalf("acme after the flood: cached=%v err=%v, %d reads: want it still cached", cached, err, src.reads-reads)
	}
	// The most recent unknown ids are answered without a read; the bound forgot older ones.
	if _, cached, err := c.Lookup(ctx, "ghost-4999"); !errors.Is(err, tenant.ErrNotFound) || !cached {
		t.Fatalf("a just-seen unknown id: cached=%v err=%v", cached, err)
	}
	// A tenant created after its id was cached as unknown is found by a Refresh.
	if err := store.Create(ctx, tenant.Config{ID: "ghost-4999"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refresh(ctx, "ghost-4999"); err != nil {
		t.Fatal(err)
	}
	if _, cached, err := c.Lookup(ctx, "ghost-4999"); err != nil || !cached {
		t.Fatalf("after the refresh: cached=%v err=%v", cached, err)
	}
}
