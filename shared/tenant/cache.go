package tenant

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Reader reads one tenant configuration.
type Reader interface {
	Get(ctx context.Context, id string) (Config, error)
}

// maxCached bounds the cache; unknown ids are cached too (so a flood of them costs one
// read each per TTL), and this keeps such a flood from growing memory without bound.
const maxCached = 10000

// Cache is a read-through cache of tenant configurations for the ingest's hot path, where
// the tenant read would otherwise be a third round trip beside the claim and the send.
// Callers that are about to refuse a request because of what the cache said call Refresh
// first, so enabling a flag or rotating in a new secret takes effect at once; only turning
// something off can lag, by at most TTL.
type Cache struct {
	Store Reader
	TTL   time.Duration
	Now   func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	cfg     Config
	err     error
	expires time.Time
}

// Get returns the cached configuration of id, reading the store when it is absent or
// older than TTL. Store errors other than ErrNotFound are not cached.
func (c *Cache) Get(ctx context.Context, id string) (Config, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.cfg, e.err
	}
	return c.Refresh(ctx, id)
}

// Refresh reads id from the store and caches the answer.
func (c *Cache) Refresh(ctx context.Context, id string) (Config, error) {
	cfg, err := c.Store.Get(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Config{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCached {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[id] = cacheEntry{cfg: cfg, err: err, expires: c.now().Add(c.TTL)}
	return cfg, err
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

// Lookup finds the tenant called id; a malformed or unknown id is not found.
func (d Directory) Lookup(ctx context.Context, id string, fresh bool) (Config, bool, error) {
	if !ValidID(id) {
		return Config{}, false, nil
	}
	get := d.Reader.Get
	if c, ok := d.Reader.(*Cache); ok && fresh {
		get = c.Refresh
	}
	cfg, err := get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Config{}, false, nil
	}
	if err == nil && d.Keeper != nil {
		if d.Purposes == nil {
			cfg, err = cfg.Opened(ctx, d.Keeper)
		} else {
			cfg, err = cfg.OpenedFor(ctx, d.Keeper, d.Purposes...)
		}
	}
	return cfg, err == nil, err
}

// Cached says whether Lookup may answer from a cache.
func (d Directory) Cached() bool {
	_, ok := d.Reader.(*Cache)
	return ok
}
