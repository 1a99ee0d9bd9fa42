// Package audittest provides an in-memory audit.Store and the contract suite every
// audit.Store must pass.
package audittest

import (
	"context"
	"sort"
	"strconv"
	"sync"

	"github.com/syncassist/syncassist/shared/audit"
)

// Store is an in-memory audit.Store, safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	records []audit.Record
}

var _ audit.Store = (*Store)(nil)

// Put implements audit.Store.
func (s *Store) Put(_ context.Context, r audit.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.records {
		if o.TenantID == r.TenantID && o.At.Equal(r.At) && o.ID == r.ID {
			return nil // stored already: a put sent again (audit.Store)
		}
	}
	r.Details = append([]byte(nil), r.Details...)
	if len(r.Details) == 0 {
		r.Details = nil
	}
	s.records = append(s.records, r)
	return nil
}

// Query implements audit.Store. Its cursor is an offset, which is fine for a fake.
func (s *Store) Query(_ context.Context, q audit.Query) (audit.Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []audit.Record
	for _, r := range s.records {
		if r.TenantID == q.TenantID && !r.At.Before(q.From) && r.At.Before(q.To) &&
			(q.ActionType == "" || r.ActionType == q.ActionType) && (q.Actor == "" || r.Actor.Actor == q.Actor) &&
			(q.ActionKey == "" || r.ActionKey == q.ActionKey) && (q.Resource == "" || r.Resource == q.Resource) &&
			(q.Result == "" || r.Result == q.Result) {
			match = append(match, r)
		}
	}
	sort.SliceStable(match, func(i, j int) bool {
		if !match[i].At.Equal(match[j].At) {
			return match[i].At.After(match[j].At)
		}
		return match[i].ID > match[j].ID
	})
	start := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(q.Cursor)
		if err != nil || n < 0 {
			return audit.Page{}, audit.ErrBadCursor
		}
		start = min(n, len(match))
	}
	end := min(start+q.Limit, len(match))
	p := audit.Page{Records: append([]audit.Record(nil), match[start:end]...)}
	if end < len(match) {
		p.NextCursor = strconv.Itoa(end)
	}
	return p, nil
}

// All returns every record, oldest first.
func (s *Store) All() []audit.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]audit.Record(nil), s.records...)
}
