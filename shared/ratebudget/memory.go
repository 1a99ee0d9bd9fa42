package ratebudget

import (
	"context"
	"maps"
	"sync"
	"time"
)

// MemoryStore is Store in one process: the tests' and the local stage's.
type MemoryStore struct {
	mu    sync.Mutex
	items map[Key]*State
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{items: map[Key]*State{}} }

func (m *MemoryStore) item(k Key) *State {
	st := m.items[k]
	if st == nil {
		st = &State{}
		m.items[k] = st
	}
	return st
}

func (st *State) clone() State {
	c := *st
	c.Slots = maps.Clone(st.Slots)
	return c
}

// Count implements Store.
func (m *MemoryStore) Count(_ context.Context, k Key, now time.Time, n, limit int, _ time.Time) (State, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.item(k)
	if st.held(now) || limit > 0 && st.Used+n > limit {
		return st.clone(), false, nil
	}
	st.Used += n
	return st.clone(), true, nil
}

// Lease implements Store.
func (m *MemoryStore) Lease(_ context.Context, k Key, now time.Time, slot int, until, _ time.Time) (State, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.item(k)
	if st.held(now) || !st.free(slot, now) {
		return st.clone(), false, nil
	}
	if st.Slots == nil {
		st.Slots = map[int]time.Time{}
	}
	st.Slots[slot] = until.Truncate(time.Millisecond)
	return st.clone(), true, nil
}

// Release implements Store.
func (m *MemoryStore) Release(_ context.Context, k Key, slot int, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.item(k)
	if end, ok := st.Slots[slot]; ok && end.Equal(until.Truncate(time.Millisecond)) {
		delete(st.Slots, slot)
	}
	return nil
}

// Hold implements Store.
func (m *MemoryStore) Hold(_ context.Context, k Key, until, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.item(k)
	if until = until.Truncate(time.Millisecond); until.After(st.NotBefore) {
		st.NotBefore = until
	}
	return nil
}

// Raise implements Store.
func (m *MemoryStore) Raise(_ context.Context, k Key, used int, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.item(k)
	st.Used = max(st.Used, used)
	return nil
}
