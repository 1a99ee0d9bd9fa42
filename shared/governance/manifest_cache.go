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
	TTL    time.Duration
	Now    func() time.Time

	entries bounded.Map[string, cachedManifest]
}

type cachedManifest struct {
	m       Manifest
	expires time.Time
	gen     uint64
}

// overridesGen moves on whenever this process changes a tenant's overrides: every cached
// manifest read before it is stale.
var overridesGen atomic.Uint64

var _ ManifestSource = (*CachedManifests)(nil)

// Manifest implements ManifestSource. Errors are not cached.
func (c *CachedManifests) Manifest(ctx context.Context, tenantID string) (Manifest, error) {
	if c.TTL <= 0 {
		return c.Source.Manifest(ctx, tenantID)
	}
	now, gen := c.now(), overridesGen.Load()
	if e, ok := c.entries.Load(tenantID); ok && e.gen == gen && now.Before(e.expires) {
		return e.m, nil
	}
	m, err := c.Source.Manifest(ctx, tenantID)
	if err != nil {
		return Manifest{}, err
	}
	c.entries.Store(tenantID, cachedManifest{m: m, expires: now.Add(c.TTL), gen: gen})
	return m, nil
}

func (c *CachedManifests) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
