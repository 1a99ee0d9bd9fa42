package tenantrun

import (
	"context"
	"slices"
	"sync"
)

// MaxLate bounds how many late tenants a memory keeps (the first, in id order); a run
// where more than this many tenants ran out of time forgets the rest, which costs them
// only their place in the next run's order.
const MaxLate = 1000

// Memory keeps which tenants ran out of their share in a job's last run, so that the next
// run tries them last. A 30-minute job's Lambda is usually cold again by its next run, so
// a deployed job keeps its memory in a table (Dynamo); InProcess serves tests and the
// in-process timers of the local stack.
type Memory interface {
	// Late returns the tenants that ran out of time last run.
	Late(ctx context.Context) ([]string, error)
	// SetLate replaces them (sorted, at most MaxLate).
	SetLate(ctx context.Context, ids []string) error
}

// InProcess is a Memory that lives as long as the value does.
type InProcess struct {
	mu   sync.Mutex
	late []string
}

// Late returns the tenants stored last.
func (m *InProcess) Late(context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.late), nil
}

// SetLate stores ids.
func (m *InProcess) SetLate(_ context.Context, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.late = slices.Clone(ids)
	return nil
}

// lateSet is a run's view of its memory: what it loaded, and what it will store.
type lateSet struct {
	was []string
	now map[string]bool
}

// load reads the memory's late tenants, keeping those still among ids (a deleted tenant
// is forgotten, so the memory stays as small as the tenant list).
func load(ctx context.Context, m Memory, ids []string) (lateSet, error) {
	s := lateSet{now: map[string]bool{}}
	if m == nil {
		return s, nil
	}
	was, err := m.Late(ctx)
	if err != nil {
		return s, err
	}
	s.was = was
	listed := make(map[string]bool, len(ids))
	for _, id := range ids {
		listed[id] = true
	}
	for _, id := range was {
		if listed[id] {
			s.now[id] = true
		}
	}
	return s, nil
}

// changed returns what to store, and whether it differs from what was loaded.
func (s lateSet) changed() ([]string, bool) {
	ids := make([]string, 0, len(s.now))
	for id := range s.now {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) > MaxLate {
		ids = ids[:MaxLate]
	}
	return ids, !slices.Equal(ids, s.was)
}
