package governance

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
)

// CachedManifests keeps each tenant's manifest for TTL in the process, so a flow event's
// guarded write does not read the tenant's overrides from the governance table each time
// (issue 37 §3). A change of overrides made in this process (TenantManifests.SetOverrides)
// takes effect at once; one made by another function (the settings Lambda) reaches a warm
// guard within TTL, the same lag the platform allows a cached tenant configuration
// (platform.Config.TenantCacheTTL). A TTL of 0 reads the source every time.
type CachedManifests struct {
	Source ManifestSource
	cache  bounded.Expiring[string, Manifest]
}

// NewCachedManifests is src with each tenant's manifest kept for ttl (now: the clock, nil
// for the system's).
func NewCachedManifests(src ManifestSource, ttl time.Duration, now func() time.Time) *CachedManifests {
	c := &CachedManifests{Source: src}
	c.cache.TTL, c.cache.Now, c.cache.Gen = ttl, now, &overridesGen
	return c
}

// overridesGen moves on whenever this process changes a tenant's overrides: every cached
// manifest read before it is stale.
var overridesGen atomic.Uint64

var _ ManifestSource = (*CachedManifests)(nil)

// Manifest implements ManifestSource. Errors are not cached.
func (c *CachedManifests) Manifest(ctx context.Context, tenantID string) (Manifest, error) {
	return c.cache.Get(tenantID, func() (Manifest, error) { return c.Source.Manifest(ctx, tenantID) })
}
