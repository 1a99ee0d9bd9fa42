// Package financetest provides an in-memory finance.Store and a fake finance.ERPUpdater
// for unit tests, and the contract suite every finance.Store must pass.
package financetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
)

// Store is an in-memory finance.Store, safe for concurrent use. It copies rows in and out
// so callers cannot alias its state, and pages with the same keyset cursors as the
// DynamoDB store.
type Store struct {
	mu   sync.Mutex
	rows map[[2]string]finance.Approval
}

var _ finance.Store = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store { return &Store{rows: map[[2]string]finance.Approval{}} }

func key(tenantID, id string) [2]string { return [2]string{tenantID, id} }

func clone(a finance.Approval) finance.Approval {
	a.Fields = slices.Clone(a.Fields)
	if len(a.Fields) == 0 {
		a.Fields = nil
	}
	if a.Lease != nil {
		l := *a.Lease
		a.Lease = &l
	}
	return a
}

func normalise(a finance.Approval) finance.Approval {
	a = clone(a)
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	if !a.DecidedAt.IsZero() {
		a.DecidedAt = a.DecidedAt.UTC()
	}
	if a.Lease != nil {
		a.Lease.ExpiresAt = a.Lease.ExpiresAt.UTC()
		if !a.Lease.Since.IsZero() {
			a.Lease.Since = a.Lease.Since.UTC()
		}
	}
	return a
}

// Create implements finance.Store.
func (s *Store) Create(_ context.Context, a finance.Approval) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(a.TenantID, a.ID)
	if _, ok := s.rows[k]; ok {
		return false, nil
	}
	s.rows[k] = normalise(a)
	return true, nil
}

// Get implements finance.Store.
func (s *Store) Get(_ context.Context, tenantID, id string) (finance.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.rows[key(tenantID, id)]
	if !ok {
		return finance.Approval{}, finance.ErrNotFound
	}
	return clone(a), nil
}

// List implements finance.Store.
func (s *Store) List(_ context.Context, tenantID string, status finance.Status, limit int, cursor string) (finance.Page, error) {
	after := ""
	if cursor != "" {
		k, _, err := finance.DecodeCursor(cursor)
		if err != nil {
			return finance.Page{}, err
		}
		after = k
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var match []finance.Approval
	for _, a := range s.rows {
		if a.TenantID == tenantID && a.Status == status && (after == "" || finance.ListKey(a.CreatedAt, a.ID) < after) {
			match = append(match, a)
		}
	}
	slices.SortFunc(match, func(a, b finance.Approval) int {
		return strings.Compare(finance.ListKey(b.CreatedAt, b.ID), finance.ListKey(a.CreatedAt, a.ID))
	})
	var p finance.Page
	for i, a := range match {
		if i == limit {
			last := p.Approvals[limit-1]
			p.NextCursor = finance.EncodeCursor(finance.ListKey(last.CreatedAt, last.ID))
			break
		}
		p.Approvals = append(p.Approvals, clone(a))
	}
	return p, nil
}

// update applies change to the row if ok accepts it, under the lock.
func (s *Store) update(tenantID, id string, ok func(finance.Approval) bool, change func(*finance.Approval)) (finance.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	a, found := s.rows[k]
	if !found {
		return finance.Approval{}, finance.ErrNotFound
	}
	if !ok(a) {
		return finance.Approval{}, finance.ErrStateChanged
	}
	a = clone(a)
	change(&a)
	s.rows[k] = a
	return clone(a), nil
}

func holds(token string) func(finance.Approval) bool {
	return func(a finance.Approval) bool {
		return a.Status == finance.StatusApplying && a.Lease != nil && a.Lease.Token == token
	}
}

// BeginAccept implements finance.Store.
func (s *Store) BeginAccept(_ context.Context, tenantID, id string, lease finance.Lease, now time.Time) (finance.Approval, error) {
	return s.update(tenantID, id, func(a finance.Approval) bool { return a.Status == finance.StatusPending }, take(lease, now))
}

// TakeOver implements finance.Store.
func (s *Store) TakeOver(_ context.Context, tenantID, id, expiredToken string, lease finance.Lease, now time.Time) (finance.Approval, error) {
	return s.update(tenantID, id, func(a finance.Approval) bool {
		return holds(expiredToken)(a) && a.Lease.ExpiresAt.Before(now) && a.AppliedAt.IsZero()
	}, take(lease, now))
}

// take is the change BeginAccept and TakeOver both make.
func take(lease finance.Lease, now time.Time) func(*finance.Approval) {
	return func(a *finance.Approval) {
		lease.ExpiresAt = lease.ExpiresAt.UTC()
		if !lease.Since.IsZero() {
			lease.Since = lease.Since.UTC()
		}
		a.Status, a.Lease, a.UpdatedAt = finance.StatusApplying, &lease, now.UTC()
	}
}

// CompleteAccept implements finance.Store.
func (s *Store) CompleteAccept(_ context.Context, tenantID, id, token, decidedBy string, now time.Time) (finance.Approval, error) {
	return s.update(tenantID, id, holds(token), func(a *finance.Approval) {
		a.Status, a.Lease, a.LastError = finance.StatusAccepted, nil, ""
		a.DecidedBy, a.DecidedAt, a.UpdatedAt = decidedBy, now.UTC(), now.UTC()
	})
}

// MarkApplied implements finance.Store.
func (s *Store) MarkApplied(_ context.Context, tenantID, id, token, by string, at time.Time) error {
	_, err := s.update(tenantID, id, holds(token), func(a *finance.Approval) {
		a.AppliedBy, a.AppliedAt, a.UpdatedAt = by, at.UTC(), at.UTC()
	})
	return err
}

// Revert implements finance.Store.
func (s *Store) Revert(_ context.Context, tenantID, id, token, lastError string, now time.Time) error {
	notApplied := func(a finance.Approval) bool { return holds(token)(a) && a.AppliedAt.IsZero() }
	_, err := s.update(tenantID, id, notApplied, func(a *finance.Approval) {
		a.Status, a.Lease, a.LastError, a.UpdatedAt = finance.StatusPending, nil, lastError, now.UTC()
	})
	return err
}

// Reject implements finance.Store.
func (s *Store) Reject(_ context.Context, tenantID, id, decidedBy, note string, now time.Time) (finance.Approval, error) {
	return s.update(tenantID, id, func(a finance.Approval) bool { return a.Status == finance.StatusPending },
		func(a *finance.Approval) {
			a.Status, a.Note = finance.StatusRejected, note
			a.DecidedBy, a.DecidedAt, a.UpdatedAt = decidedBy, now.UTC(), now.UTC()
		})
}

// ExpiredLeases implements finance.Store.
func (s *Store) ExpiredLeases(_ context.Context, tenantID string, now time.Time, limit int) ([]finance.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []finance.Approval
	for _, a := range s.rows {
		if a.TenantID == tenantID && a.Status == finance.StatusApplying && a.Lease != nil && a.Lease.ExpiresAt.Before(now) {
			out = append(out, clone(a))
		}
	}
	slices.SortFunc(out, func(a, b finance.Approval) int { return strings.Compare(a.ID, b.ID) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Len returns how many rows the store holds.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}
