// Package bounded holds a map of at most a fixed number of entries: the per-tenant
// memories of a warm process (caches, refresh limits), which callers naming random
// tenants — a flood of forged requests — must not grow without bound.
package bounded

import "sync"

// DefaultMax is the size of a Map whose Max is zero.
const DefaultMax = 10000

// Map is a mutex-guarded map of at most Max entries. Storing a new key into a full map
// first evicts an arbitrary entry (Go's map iteration starts at a random place), which
// costs O(1) and which no order of requests can aim at one entry. It is for memories
// whose loss costs a re-read, never correctness. The zero Map is ready to use.
type Map[K comparable, V any] struct {
	Max int

	mu sync.Mutex
	m  map[K]V
}

// Load returns k's value.
func (b *Map[K, V]) Load(k K) (V, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.m[k]
	return v, ok
}

// Store sets k's value, evicting another entry when the map is full.
func (b *Map[K, V]) Store(k K, v V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store(k, v)
}

// Update calls f with k's value (ok is false when there is none) under the map's lock and
// stores the value f returns when it says so; it returns what f said. It makes a
// check-then-set, such as a per-key rate limit, atomic.
func (b *Map[K, V]) Update(k K, f func(v V, ok bool) (V, bool)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	old, ok := b.m[k]
	v, set := f(old, ok)
	if set {
		b.store(k, v)
	}
	return set
}

// Delete removes k.
func (b *Map[K, V]) Delete(k K) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, k)
}

// Len is the number of entries.
func (b *Map[K, V]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

// store is called with b.mu held.
func (b *Map[K, V]) store(k K, v V) {
	if b.m == nil {
		b.m = map[K]V{}
	}
	if _, ok := b.m[k]; !ok && len(b.m) >= b.max() {
		for old := range b.m {
			delete(b.m, old)
			break
		}
	}
	b.m[k] = v
}

func (b *Map[K, V]) max() int {
	if b.Max > 0 {
		return b.Max
	}
	return DefaultMax
}
