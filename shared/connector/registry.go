package connector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ConfigSource gives a tenant's connection settings for a system. It returns an error
// wrapping ErrNotConfigured when the tenant has no connector for the system. A Config with
// an empty System is taken to be for the system asked for.
type ConfigSource interface {
	ConnectorConfig(ctx context.Context, tenantID string, system System) (Config, error)
}

// DefaultRegistryTTL is how long Registry keeps a client before reading its configuration
// again, so a rotated token or a moved base URL takes effect without a redeploy.
const DefaultRegistryTTL = 5 * time.Minute

// Registry builds clients from a ConfigSource and keeps one per tenant and system, so the
// connection pool of a warm Lambda is reused across invocations. It is safe for concurrent
// use; concurrent first calls for the same key share one configuration read.
type Registry struct {
	src ConfigSource
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[registryKey]*registryEntry
}

type registryKey struct {
	tenant string
	system System
}

type registryEntry struct {
	ready   chan struct{} // closed when client and err are set
	client  *Client
	err     error
	expires time.Time
}

// NewRegistry returns a Registry over src; ttl <= 0 means DefaultRegistryTTL.
func NewRegistry(src ConfigSource, ttl time.Duration) *Registry {
	if ttl <= 0 {
		ttl = DefaultRegistryTTL
	}
	return &Registry{src: src, ttl: ttl, now: time.Now, entries: map[registryKey]*registryEntry{}}
}

// Client returns the tenant's client for system, building it on first use and again after
// the TTL. Errors are not cached, so a tenant configured a moment ago works at once. It
// returns errors wrapping ErrNotConfigured, ErrInvalidConfig or ErrUnsupported (unknown
// system), or the source's own error.
func (r *Registry) Client(ctx context.Context, tenantID string, system System) (*Client, error) {
	if tenantID == "" {
		return nil, fmt.Errorf("%w: tenant id is required", ErrInvalidConfig)
	}
	if !system.Known() {
		return nil, fmt.Errorf("%w: unknown system %q", ErrUnsupported, system)
	}
	key := registryKey{tenantID, system}
	for {
		r.mu.Lock()
		e, ok := r.entries[key]
		if !ok || r.expired(e) {
			if !ok {
				r.makeRoom()
			}
			e = &registryEntry{ready: make(chan struct{})}
			old := r.entries[key]
			r.entries[key] = e
			r.mu.Unlock()
			if old != nil && old.client != nil {
				// Calls in flight on the old client finish; only its idle pool goes.
				old.client.CloseIdleConnections()
			}
			r.load(ctx, key, e)
			return e.client, e.err
		}
		r.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !errors.Is(e.err, context.Canceled) && !errors.Is(e.err, context.DeadlineExceeded) {
			return e.client, e.err
		}
		// The load this call waited on ended with its caller's ctx; try on this call's own.
	}
}

// maxRegistryEntries bounds the clients a warm process keeps, one per tenant and system.
const maxRegistryEntries = 4096

// makeRoom is called with r.mu held before a new key is added: when the registry is full
// it drops an expired or failed entry, else an arbitrary finished one, closing its idle
// connections. An entry still loading stays, and its waiters are unaffected either way.
func (r *Registry) makeRoom() {
	if len(r.entries) < maxRegistryEntries {
		return
	}
	var victim *registryKey
	for k, e := range r.entries {
		if r.expired(e) {
			victim = &k
			break
		}
		if victim == nil && isReady(e) {
			victim = &k
		}
	}
	if victim == nil {
		return
	}
	if old := r.entries[*victim]; old.client != nil {
		old.client.CloseIdleConnections()
	}
	delete(r.entries, *victim)
}

func isReady(e *registryEntry) bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

// expired is called with r.mu held. An entry still loading is never expired.
func (r *Registry) expired(e *registryEntry) bool {
	select {
	case <-e.ready:
		return e.err != nil || !r.now().Before(e.expires)
	default:
		return false
	}
}

func (r *Registry) load(ctx context.Context, key registryKey, e *registryEntry) {
	defer close(e.ready)
	cfg, err := r.src.ConnectorConfig(ctx, key.tenant, key.system)
	if err == nil {
		if cfg.System == "" {
			cfg.System = key.system
		}
		if cfg.TenantID == "" {
			cfg.TenantID = key.tenant
		}
		if cfg.System != key.system {
			err = fmt.Errorf("%w: configuration for %s names system %s", ErrInvalidConfig, key.system, cfg.System)
		} else {
			e.client, err = New(cfg)
		}
	}
	if err != nil {
		e.err = fmt.Errorf("connector for tenant %s, system %s: %w", key.tenant, key.system, err)
		r.mu.Lock()
		if r.entries[key] == e {
			delete(r.entries, key)
		}
		r.mu.Unlock()
		return
	}
	e.expires = r.now().Add(r.ttl)
}

// Forget drops the cached client of a tenant and system, for callers that know its
// configuration just changed (a rotated token) and cannot wait for the TTL.
func (r *Registry) Forget(tenantID string, system System) {
	r.mu.Lock()
	e := r.entries[registryKey{tenantID, system}]
	delete(r.entries, registryKey{tenantID, system})
	r.mu.Unlock()
	if e != nil {
		select {
		case <-e.ready:
			if e.client != nil {
				e.client.CloseIdleConnections()
			}
		default:
		}
	}
}
