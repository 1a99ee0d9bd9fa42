package bounded

import (
	"sync/atomic"
	"time"
)

// Expiring keeps a value per key for TTL, read through on a miss: the per-tenant caches
// of a warm process (a tenant's flows, manifest, approval policy). Gen, when set, is a
// counter the owner moves on whenever this process changes what the values come from, so
// a change made here is seen at once; one made by another process is seen within TTL.
// Errors are not kept. A TTL of 0 reads through every time. The zero Expiring (but TTL) is
// ready to use.
type Expiring[K comparable, V any] struct {
	TTL time.Duration
	Now func() time.Time
	Gen *atomic.Uint64

	entries Map[K, expiringEntry[V]]
}

type expiringEntry[V any] struct {
	v       V
	expires time.Time
	gen     uint64
}

// Get returns k's value, from memory while it is fresh, else from load (kept for TTL).
func (e *Expiring[K, V]) Get(k K, load func() (V, error)) (V, error) {
	if e.TTL <= 0 {
		return load()
	}
	now, gen := e.now(), e.gen()
	if c, ok := e.entries.Load(k); ok && c.gen == gen && now.Before(c.expires) {
		return c.v, nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	e.entries.Store(k, expiringEntry[V]{v: v, expires: now.Add(e.TTL), gen: gen})
	return v, nil
}

func (e *Expiring[K, V]) gen() uint64 {
	if e.Gen == nil {
		return 0
	}
	return e.Gen.Load()
}

func (e *Expiring[K, V]) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}
