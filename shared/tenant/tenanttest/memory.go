// Package tenanttest provides an in-memory tenant.Store for unit tests and the contract
// suite every tenant.Store must pass.
package tenanttest

import (
	"context"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/syncassist/syncassist/shared/tenant"
)

// Store is an in-memory tenant.Store, safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	tenants map[string]tenant.Config
}

var _ tenant.Store = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store { return &Store{tenants: map[string]tenant.Config{}} }

func clone(c tenant.Config) tenant.Config {
	c.Settings = maps.Clone(c.Settings)
	if c.Settings == nil {
		c.Settings = map[string]string{}
	}
	for _, p := range tenant.Purposes {
		*c.Secrets(p) = slices.Clone(*c.Secrets(p))
	}
	c.Connectors = maps.Clone(c.Connectors)
	c.SystemAliases = maps.Clone(c.SystemAliases)
	return c
}

// Get implements tenant.Store.
func (s *Store) Get(_ context.Context, id string) (tenant.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.tenants[id]
	if !ok {
		return tenant.Config{}, tenant.ErrNotFound
	}
	return clone(c), nil
}

// Create implements tenant.Store.
func (s *Store) Create(_ context.Context, c tenant.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tenants[c.ID]; ok {
		return tenant.ErrExists
	}
	c = clone(c)
	c.Version = 1
	s.tenants[c.ID] = c
	return nil
}

// Update implements tenant.Store.
func (s *Store) Update(_ context.Context, c tenant.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.tenants[c.ID]
	if !ok {
		return tenant.ErrNotFound
	}
	if cur.Version != c.Version {
		return tenant.ErrConflict
	}
	c = clone(c)
	c.Version++
	s.tenants[c.ID] = c
	return nil
}

// List implements tenant.Store.
func (s *Store) List(_ context.Context) ([]tenant.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]tenant.Config, 0, len(s.tenants))
	for _, c := range s.tenants {
		out = append(out, clone(c))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
