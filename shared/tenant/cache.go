package tenant

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
)

// Reader reads one tenant configuration.
type Reader interface {
	Get(ctx context.Context, id string) (Config, error)
}

// Cache is a read-through cache of tenant configurations for the ingest's hot path, where
// the tenant read would otherwise be a third round trip beside the claim and the send.
// Callers that are about to refuse a request because of what the cache said call Refresh
// first, so enabling a flag or rotating in a new secret takes effect at once; only turning
// something off can lag, by at most TTL.
//
// Unknown ids are remembered too, in a negative cache of their own: a flood of forged
// requests naming random tenants costs one read per id per TTL, grows neither map past its
// bound, and evicts no real tenant's configuration.
type Cache struct {
	Store Reader
	TTL   time.Duration
	Now   func() time.Time
	// MaxTenants and MaxUnknown bound the two maps (bounded.DefaultMax when zero).
	MaxTenants, MaxUnknown int

	once    sync.Once
	known   bounded.Map[string, cacheEntry]
	unknown bounded.Map[string, time.Time] // id → when the "not found" expires
}

type cacheEntry struct {
	cfg     Config
	expires time.Time
}

// Get returns the cached configuration of id, reading the store when it is absent or
// older than TTL. Store errors other than ErrNotFound are not cached.
func (c *Cache) Get(ctx context.Context, id string) (Config, error) {
	cfg, _, err := c.Lookup(ctx, id)
	return cfg, err
}

// Lookup is Get that also says whether the answer came from the cache (cached) rather
// than from a read just now.
func (c *Cache) Lookup(ctx context.Context, id string) (cfg Config, cached bool, err error) {
	c.init()
	now := c.now()
	if e, ok := c.known.Load(id); ok && now.Before(e.expires) {
		return e.cfg, true, nil
	}
	if until, ok := c.unknown.Load(id); ok && now.Before(until) {
		return Config{}, true, ErrNotFound
	}
	cfg, err = c.Refresh(ctx, id)
	return cfg, false, err
}

// Refresh reads id from the store and caches the answer.
func (c *Cache) Refresh(ctx context.Context, id string) (Config, error) {
	c.init()
	cfg, err := c.Store.Get(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Config{}, err
	}
	expires := c.now().Add(c.TTL)
	if err != nil {
		c.known.Delete(id)
		c.unknown.Store(id, expires)
		return Config{}, err
	}
	c.unknown.Delete(id)
	c.known.Store(id, cacheEntry{cfg: cfg, expires: expires})
	return cfg, nil
}

func (c *Cache) init() {
	c.once.Do(func() { c.known.Max, c.unknown.Max = c.MaxTenants, c.MaxUnknown })
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Directory is hostauth's view of tenants over a Reader: the store, or a Cache, whose
// answers a fresh lookup bypasses.
type Directory struct {
	Reader Reader
	// Keeper opens the tenant's secrets for the signature check (nil: stored as they are).
	Keeper Keeper
	// Purposes are the secrets opened: the route's own (nil: every purpose, for tests and
	// tools). A function's key grant covers its purposes only, so it opens no others.
	Purposes []Purpose
}

// Lookup finds the tenant called id; a malformed or unknown id is not found. cached says
// the answer came from a Cache, not a read just now.
func (d Directory) Lookup(ctx context.Context, id string, fresh bool) (cfg Config, found, cached bool, err error) {
	if !ValidID(id) {
		return Config{}, false, false, nil
	}
	switch c, ok := d.Reader.(*Cache); {
	case ok && fresh:
		cfg, err = c.Refresh(ctx, id)
	case ok:
		cfg, cached, err = c.Lookup(ctx, id)
	default:
		cfg, err = d.Reader.Get(ctx, id)
	}
	if errors.Is(err, ErrNotFound) {
		return Config{}, false, cached, nil
	}
	if err == nil && d.Keeper != nil {
		if d.Purposes == nil {
			cfg, err = cfg.Opened(ctx, d.Keeper)
		} else {
			cfg, err = cfg.OpenedFor(ctx, d.Keeper, d.Purposes...)
		}
	}
	return cfg, err == nil, cached, err
}
