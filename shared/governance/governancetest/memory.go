// Package governancetest provides in-memory implementations of the governance stores
// (records, ledger, manifest overrides), fakes of the guard's other dependencies, and the
// contract suites every store implementation must pass.
package governancetest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
)

// sortKey sorts as the DynamoDB store's sort keys do (fixed-width times).
func sortKey(t time.Time, id string) string { return dynamostore.FormatTime(t) + "#" + id }

func encodeCursor(kind, key string) string { return dynamostore.EncodeCursor(kind + "#" + key) }

func decodeCursor(kind, cursor string) (string, error) {
	key, _, ok := dynamostore.DecodeTimedCursor(cursor, kind+"#")
	if !ok {
		return "", governance.ErrBadCursor
	}
	return key[len(kind)+1:], nil
}

// page returns the items below the cursor, newest first, and the next cursor.
func page[T any](kind string, items []T, key func(T) string, limit int, cursor string) (governance.Page[T], error) {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b T) int { return cmp.Compare(key(b), key(a)) })
	if cursor != "" {
		after, err := decodeCursor(kind, cursor)
		if err != nil {
			return governance.Page[T]{}, err
		}
		i := 0
		for i < len(sorted) && key(sorted[i]) >= after {
			i++
		}
		sorted = sorted[i:]
	}
	var p governance.Page[T]
	if limit <= 0 {
		limit = len(sorted)
	}
	if len(sorted) > limit {
		sorted = sorted[:limit]
		p.NextCursor = encodeCursor(kind, key(sorted[limit-1]))
	}
	p.Items = sorted
	return p, nil
}

// Store is an in-memory governance.RecordStore, safe for concurrent use. It copies what
// it stores and returns, and round-trips held fields through JSON as a database would.
type Store struct {
	mu         sync.Mutex
	rejections []governance.OwnershipRejection
	loops      []governance.LoopDetection
	approvals  map[tenantID]governance.PendingApproval
}

type tenantID struct{ tenant, id string }

var _ governance.RecordStore = (*Store)(nil)

func cloneRejection(r governance.OwnershipRejection) governance.OwnershipRejection {
	r.Time = r.Time.UTC()
	r.Fields = slices.Clone(r.Fields)
	return r
}

func cloneApproval(a governance.PendingApproval) governance.PendingApproval {
	a.Time = a.Time.UTC()
	a.DecidedAt = a.DecidedAt.UTC()
	a.Fields = slices.Clone(a.Fields)
	a.RequestedByKeys = slices.Clone(a.RequestedByKeys)
	a.Request.Fields = CloneFields(a.Request.Fields)
	return a
}

// CloneFields deep-copies fields through JSON, with numbers as json.Number, which is what
// a held write looks like after any store.
func CloneFields(fields map[string]any) map[string]any {
	if fields == nil {
		return nil
	}
	b, err := json.Marshal(fields)
	if err != nil {
		panic("governancetest: fields do not encode as JSON: " + err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// PutRejection implements governance.RecordStore.
func (s *Store) PutRejection(_ context.Context, r governance.OwnershipRejection) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejections = append(s.rejections, cloneRejection(r))
	return nil
}

// ListRejections implements governance.RecordStore.
func (s *Store) ListRejections(_ context.Context, q governance.RecordQuery) (governance.Page[governance.OwnershipRejection], error) {
	s.mu.Lock()
	var match []governance.OwnershipRejection
	for _, r := range s.rejections {
		if r.Tenant == q.Tenant && !r.Time.Before(q.From) && r.Time.Before(q.To) {
			match = append(match, cloneRejection(r))
		}
	}
	s.mu.Unlock()
	return page("rej", match, func(r governance.OwnershipRejection) string { return sortKey(r.Time, r.ID) }, q.Limit, q.Cursor)
}

// PutLoop implements governance.RecordStore.
func (s *Store) PutLoop(_ context.Context, l governance.LoopDetection) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l.Time = l.Time.UTC()
	s.loops = append(s.loops, l)
	return nil
}

// ListLoops implements governance.RecordStore.
func (s *Store) ListLoops(_ context.Context, q governance.RecordQuery) (governance.Page[governance.LoopDetection], error) {
	s.mu.Lock()
	var match []governance.LoopDetection
	for _, l := range s.loops {
		if l.Tenant == q.Tenant && !l.Time.Before(q.From) && l.Time.Before(q.To) {
			match = append(match, l)
		}
	}
	s.mu.Unlock()
	return page("loop", match, func(l governance.LoopDetection) string { return sortKey(l.Time, l.ID) }, q.Limit, q.Cursor)
}

// PutApproval implements governance.RecordStore.
func (s *Store) PutApproval(_ context.Context, a governance.PendingApproval) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tenantID{a.Tenant, a.ID}
	if _, ok := s.approvals[k]; ok {
		return governance.ErrExists
	}
	if s.approvals == nil {
		s.approvals = map[tenantID]governance.PendingApproval{}
	}
	s.approvals[k] = cloneApproval(a)
	return nil
}

// GetApproval implements governance.RecordStore.
func (s *Store) GetApproval(_ context.Context, tenant, id string) (governance.PendingApproval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[tenantID{tenant, id}]
	if !ok {
		return governance.PendingApproval{}, governance.ErrNotFound
	}
	return cloneApproval(a), nil
}

// ListApprovals implements governance.RecordStore.
func (s *Store) ListApprovals(_ context.Context, q governance.ApprovalQuery) (governance.Page[governance.PendingApproval], error) {
	s.mu.Lock()
	var match []governance.PendingApproval
	for _, a := range s.approvals {
		if a.Tenant == q.Tenant && a.Status == q.Status && a.Reason == q.Reason {
			match = append(match, cloneApproval(a))
		}
	}
	s.mu.Unlock()
	return page("appr", match, func(a governance.PendingApproval) string { return sortKey(a.Time, a.ID) }, q.Limit, q.Cursor)
}

// DecideApproval implements governance.RecordStore.
func (s *Store) DecideApproval(_ context.Context, tenant, id string, from, to governance.ApprovalStatus, by string, at time.Time) (governance.PendingApproval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tenantID{tenant, id}
	a, ok := s.approvals[k]
	switch {
	case !ok:
		return governance.PendingApproval{}, governance.ErrNotFound
	case a.Status != from:
		return governance.PendingApproval{}, governance.ErrStateChanged
	}
	a.Status = to
	if by == "" {
		a.DecidedBy, a.DecidedAt = "", time.Time{}
	} else {
		a.DecidedBy, a.DecidedAt = by, at.UTC()
	}
	s.approvals[k] = a
	return cloneApproval(a), nil
}

// RetakeRelease implements governance.RecordStore.
func (s *Store) RetakeRelease(_ context.Context, tenant, id string, staleBefore time.Time, by string, at time.Time) (governance.PendingApproval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tenantID{tenant, id}
	a, ok := s.approvals[k]
	switch {
	case !ok:
		return governance.PendingApproval{}, governance.ErrNotFound
	case a.Status != governance.StatusReleasing || !a.DecidedAt.Before(staleBefore):
		return governance.PendingApproval{}, governance.ErrStateChanged
	}
	a.DecidedBy, a.DecidedAt = by, at.UTC()
	s.approvals[k] = a
	return cloneApproval(a), nil
}

// Rejections returns every stored rejection, in the order stored.
func (s *Store) Rejections() []governance.OwnershipRejection {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]governance.OwnershipRejection, len(s.rejections))
	for i, r := range s.rejections {
		out[i] = cloneRejection(r)
	}
	return out
}

// Loops returns every stored loop detection, in the order stored.
func (s *Store) Loops() []governance.LoopDetection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.loops)
}

// Approvals returns every stored approval, oldest first.
func (s *Store) Approvals() []governance.PendingApproval {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]governance.PendingApproval, 0, len(s.approvals))
	for _, a := range s.approvals {
		out = append(out, cloneApproval(a))
	}
	slices.SortFunc(out, func(a, b governance.PendingApproval) int {
		return cmp.Compare(sortKey(a.Time, a.ID), sortKey(b.Time, b.ID))
	})
	return out
}

// Ledger is an in-memory governance.Ledger, safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	entries map[ledgerKey][]governance.LedgerEntry
	count   int
}

type ledgerKey struct{ tenant, entity, recordID string }

// foldedKey keys entries as governance.Ledger says they compare.
func foldedKey(tenant, entity, recordID string) ledgerKey {
	entity, recordID = governance.FoldLedgerKey(entity, recordID)
	return ledgerKey{tenant, entity, recordID}
}

var _ governance.Ledger = (*Ledger)(nil)

// Append implements governance.Ledger.
func (l *Ledger) Append(_ context.Context, e governance.LedgerEntry) error {
	e.Time = e.Time.UTC()
	e.Fields, e.SubjectFields = slices.Clone(e.Fields), slices.Clone(e.SubjectFields)
	e.Trail, e.Sent = cloneTrail(e.Trail), maps.Clone(e.Sent)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries == nil {
		l.entries = map[ledgerKey][]governance.LedgerEntry{}
	}
	k := foldedKey(e.Tenant, e.Entity, e.RecordID)
	for _, o := range l.entries[k] {
		if o.ID == e.ID && o.Time.Equal(e.Time) {
			return nil // stored already: a put sent again (governance.Ledger)
		}
	}
	l.entries[k] = append(l.entries[k], e)
	l.count++
	return nil
}

// Recent implements governance.Ledger.
func (l *Ledger) Recent(_ context.Context, tenant, entity, recordID string, since time.Time) ([]governance.LedgerEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []governance.LedgerEntry
	for _, e := range l.entries[foldedKey(tenant, entity, recordID)] {
		if !e.Time.Before(since) {
			e.Fields, e.SubjectFields = slices.Clone(e.Fields), slices.Clone(e.SubjectFields)
			e.Trail, e.Sent = cloneTrail(e.Trail), maps.Clone(e.Sent)
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b governance.LedgerEntry) int { return a.Time.Compare(b.Time) })
	return out, nil
}

func cloneTrail(t map[string]governance.FieldTrail) map[string]governance.FieldTrail {
	if t == nil {
		return nil
	}
	out := make(map[string]governance.FieldTrail, len(t))
	for k, v := range t {
		v.Hops = slices.Clone(v.Hops)
		out[k] = v
	}
	return out
}

// Len is the number of entries appended.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}

// Overrides is an in-memory governance.OverrideStore, safe for concurrent use.
type Overrides struct {
	mu      sync.Mutex
	entries map[string][]governance.Entry
}

var _ governance.OverrideStore = (*Overrides)(nil)

// Overrides implements governance.OverrideStore.
func (o *Overrides) Overrides(_ context.Context, tenant string) ([]governance.Entry, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.entries[tenant]), nil
}

// PutOverrides implements governance.OverrideStore.
func (o *Overrides) PutOverrides(_ context.Context, tenant string, entries []governance.Entry) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.entries == nil {
		o.entries = map[string][]governance.Entry{}
	}
	o.entries[tenant] = slices.Clone(entries)
	return nil
}
