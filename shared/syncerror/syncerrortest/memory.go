// Package syncerrortest provides an in-memory ClaimStore and Queue for unit tests, and the
// sample rows the tests start from; the contract suites are in storecontract.
package syncerrortest

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// ClaimStore is an in-memory syncerror.ClaimStore, safe for concurrent use. It copies rows
// in and out so callers cannot alias its state.
type ClaimStore struct {
	mu         sync.Mutex
	rows       map[[2]string]syncerror.Claim
	watermarks map[string]time.Time
	docs       map[string]map[string]syncerror.Doc
	signatures map[[2]string]syncerror.SignatureState
	errorRows  map[[2]string]string
	// recent holds a full row's last key per slot, keyed by tenant and "row#slot".
	recent map[[2]string]string
}

var _ syncerror.ClaimStore = (*ClaimStore)(nil)

// NewClaimStore returns an empty store.
func NewClaimStore() *ClaimStore {
	return &ClaimStore{rows: map[[2]string]syncerror.Claim{}, watermarks: map[string]time.Time{},
		signatures: map[[2]string]syncerror.SignatureState{}, errorRows: map[[2]string]string{},
		recent: map[[2]string]string{}}
}

func key(tenantID, id string) [2]string { return [2]string{tenantID, id} }

func clone(c syncerror.Claim) syncerror.Claim {
	c.Record.Payload = append([]byte(nil), c.Record.Payload...)
	c.Record.Context = append([]byte(nil), c.Record.Context...)
	if len(c.Record.Payload) == 0 {
		c.Record.Payload = nil
	}
	if len(c.Record.Context) == 0 {
		c.Record.Context = nil
	}
	if c.Proposal != nil {
		p := *c.Proposal
		p.Fix = append([]syncerror.FieldChange(nil), p.Fix...)
		c.Proposal = &p
	}
	if c.Applied != nil {
		a := *c.Applied
		a.Prior = append([]syncerror.PriorValue(nil), a.Prior...)
		if len(a.Prior) == 0 {
			a.Prior = nil
		}
		a.Fix = slices.Clone(a.Fix)
		a.RevertMarks = slices.Clone(a.RevertMarks)
		c.Applied = &a
	}
	if c.Lease != nil {
		l := *c.Lease
		l.Fix = slices.Clone(l.Fix)
		c.Lease = &l
	}
	if c.EditedFix != nil {
		c.EditedFix = append([]syncerror.FieldChange(nil), c.EditedFix...)
	}
	c.History = append([]syncerror.HistoryEntry(nil), c.History...)
	c.Retry.ErrorKeys = append([]string(nil), c.Retry.ErrorKeys...)
	if len(c.Retry.ErrorKeys) == 0 {
		c.Retry.ErrorKeys = nil
	}
	c.Triage.Tags = slices.Clone(c.Triage.Tags)
	c.Triage.Notes = slices.Clone(c.Triage.Notes)
	return c
}

// Claim implements syncerror.ClaimStore.
func (s *ClaimStore) Claim(_ context.Context, c syncerror.Claim) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(c.TenantID, c.ID)
	if _, ok := s.rows[k]; ok {
		return false, nil
	}
	s.rows[k] = clone(c)
	return true, nil
}

// Get implements syncerror.ClaimStore.
func (s *ClaimStore) Get(_ context.Context, tenantID, id string) (syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.rows[key(tenantID, id)]
	if !ok {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	return clone(c), nil
}

// BeginDiagnosis implements syncerror.ClaimStore.
func (s *ClaimStore) BeginDiagnosis(_ context.Context, tenantID, id string, now, staleBefore time.Time) (syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	takeable := c.Diagnosis == syncerror.DiagnosisQueued ||
		(c.Diagnosis == syncerror.DiagnosisDiagnosing && c.DiagnosisSince.Before(staleBefore))
	if !takeable {
		return syncerror.Claim{}, syncerror.ErrStateChanged
	}
	// As the DynamoDB store: taking a row changes nothing its listing reads (updated_at
	// included), and the listing shows it queued (List).
	c.Diagnosis = syncerror.DiagnosisDiagnosing
	c.DiagnosisSince = now.UTC()
	c.DiagnosisAttempts++
	s.rows[k] = c
	return clone(c), nil
}

// Stuck implements syncerror.ClaimStore.
func (s *ClaimStore) Stuck(_ context.Context, tenantID string, d syncerror.Diagnosis, cutoff time.Time, limit int) ([]syncerror.Claim, error) {
	if !d.Tracked() {
		return nil, syncerror.ErrUntracked
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []syncerror.Claim
	for _, c := range s.rows {
		if c.TenantID == tenantID && c.Diagnosis == d && c.DiagnosisSince.Before(cutoff) {
			out = append(out, clone(c))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].DiagnosisSince.Equal(out[j].DiagnosisSince) {
			return out[i].DiagnosisSince.Before(out[j].DiagnosisSince)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Requeue implements syncerror.ClaimStore.
func (s *ClaimStore) Requeue(_ context.Context, tenantID, id string, seen syncerror.Diagnosis, seenSince, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Diagnosis != seen || !c.DiagnosisSince.Equal(seenSince) {
		return syncerror.ErrStateChanged
	}
	c.Diagnosis = syncerror.DiagnosisQueued
	c.DiagnosisSince = now.UTC()
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return nil
}

// CompleteDiagnosis implements syncerror.ClaimStore.
func (s *ClaimStore) CompleteDiagnosis(_ context.Context, tenantID, id string, attempt int, p syncerror.Proposal, now time.Time) error {
	return s.endAttempt(tenantID, id, attempt, func(c *syncerror.Claim) {
		p.Fix = append([]syncerror.FieldChange(nil), p.Fix...)
		c.Proposal = &p
		c.Diagnosis = syncerror.DiagnosisReady
		c.DiagnosisError = ""
		c.DiagnosisSince, c.UpdatedAt = now.UTC(), now.UTC()
	})
}

// EndDiagnosis implements syncerror.ClaimStore.
func (s *ClaimStore) EndDiagnosis(_ context.Context, tenantID, id string, attempt int, d syncerror.Diagnosis, reason string, now time.Time) error {
	return s.endAttempt(tenantID, id, attempt, func(c *syncerror.Claim) {
		c.Diagnosis = d
		c.DiagnosisError = reason
		c.DiagnosisSince, c.UpdatedAt = now.UTC(), now.UTC()
	})
}

func (s *ClaimStore) endAttempt(tenantID, id string, attempt int, apply func(*syncerror.Claim)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Diagnosis != syncerror.DiagnosisDiagnosing || c.DiagnosisAttempts != attempt {
		return syncerror.ErrStateChanged
	}
	apply(&c)
	s.rows[k] = c
	return nil
}

// List implements syncerror.DecisionStore; its cursor is an offset, fine for a fake.
func (s *ClaimStore) List(_ context.Context, tenantID string, q syncerror.ListQuery) (syncerror.Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit, cursor := q.Limit, q.Cursor
	var match []syncerror.Claim
	for _, c := range s.rows {
		if c.TenantID == tenantID && c.Status == q.Status && !c.ClaimedAt.Before(q.Since) && listed(c, q) {
			match = append(match, c)
		}
	}
	sort.Slice(match, func(i, j int) bool {
		if !match[i].ClaimedAt.Equal(match[j].ClaimedAt) {
			return match[i].ClaimedAt.After(match[j].ClaimedAt) != q.Oldest
		}
		return (match[i].ID > match[j].ID) != q.Oldest
	})
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 || n > len(match) {
			return syncerror.Page{}, syncerror.ErrBadCursor
		}
		start = n
	}
	end := min(start+limit, len(match))
	var p syncerror.Page
	for _, c := range match[start:end] {
		lc := clone(c)
		if lc.Diagnosis == syncerror.DiagnosisDiagnosing {
			// The DynamoDB store's listing index is not written when a worker takes a row.
			lc.Diagnosis = syncerror.DiagnosisQueued
		}
		p.Claims = append(p.Claims, lc)
	}
	if end < len(match) {
		p.NextCursor = strconv.Itoa(end)
	}
	return p, nil
}

// BeginApply implements syncerror.DecisionStore.
func (s *ClaimStore) BeginApply(_ context.Context, tenantID, id string, from syncerror.Status, lease syncerror.Lease, edited []syncerror.FieldChange, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	if c.Status != from || c.Diagnosis != syncerror.DiagnosisReady || c.Applied != nil {
		return syncerror.Claim{}, syncerror.ErrStateChanged
	}
	c.Status = syncerror.StatusApplying
	lease.From = from
	// Kept as JSON, as the DynamoDB store keeps it.
	lease.Fix = viaJSON(lease.Fix)
	c.Lease = &lease
	c.EditedFix = viaJSON(edited)
	c.History = append(append([]syncerror.HistoryEntry(nil), c.History...), entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return clone(c), nil
}

// FinishApply implements syncerror.DecisionStore.
func (s *ClaimStore) FinishApply(_ context.Context, tenantID, id, token string, to syncerror.Status, applyErr string, entry syncerror.HistoryEntry, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finishApply(tenantID, id, token, to, applyErr, entry, now)
}

func (s *ClaimStore) finishApply(tenantID, id, token string, to syncerror.Status, applyErr string, entry syncerror.HistoryEntry, now time.Time) error {
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Status != syncerror.StatusApplying || c.Lease == nil || c.Lease.Token != token ||
		c.Applied != nil && to != syncerror.StatusApproved {
		return syncerror.ErrStateChanged
	}
	c.Status, c.Lease, c.ApplyError = to, nil, applyErr
	if to != syncerror.StatusApproved && !syncerror.KeepsEdit(entry.Action) {
		// The edit was not written: it leaves with its lease (DecisionStore.FinishApply).
		c.EditedFix = nil
	}
	c.History = append(append([]syncerror.HistoryEntry(nil), c.History...), entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return nil
}

// MarkApplied implements syncerror.DecisionStore.
func (s *ClaimStore) MarkApplied(_ context.Context, tenantID, id, token string, w syncerror.AppliedWrite, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.markApplied(tenantID, id, token, w, now)
}

func (s *ClaimStore) markApplied(tenantID, id, token string, w syncerror.AppliedWrite, now time.Time) error {
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Status != syncerror.StatusApplying || c.Lease == nil || c.Lease.Token != token {
		return syncerror.ErrStateChanged
	}
	w.At = w.At.UTC()
	if len(w.Prior) > 0 {
		// Kept as JSON, as the DynamoDB store keeps it: numbers come back as json.Number.
		b, err := json.Marshal(w.Prior)
		if err != nil {
			return err
		}
		w.Prior = nil
		_ = jsonvalue.Unmarshal(b, &w.Prior)
	}
	w.Fix = viaJSON(w.Fix)
	// A revert's mark is MarkRevertSent's alone: an applied write is marked before any.
	w.RevertMarks = nil
	c.Applied = &w
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return nil
}

// CompleteApply implements syncerror.DecisionStore.
func (s *ClaimStore) CompleteApply(_ context.Context, tenantID, id, token string, w syncerror.AppliedWrite, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	// The two under one hold of the lock, as the DynamoDB store's one write: no reader sees
	// the row marked and still applying. Both hold the row to the same condition (applying
	// under token), so the second cannot refuse what the first took.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.markApplied(tenantID, id, token, w, now); err != nil {
		return syncerror.Claim{}, err
	}
	if err := s.finishApply(tenantID, id, token, syncerror.StatusApproved, "", entry, now); err != nil {
		return syncerror.Claim{}, err
	}
	return clone(s.rows[key(tenantID, id)]), nil
}

// viaJSON is fix as a store keeps it, JSON (nil for an empty one): numbers come back as
// the DynamoDB store gives them.
func viaJSON(fix []syncerror.FieldChange) []syncerror.FieldChange {
	if len(fix) == 0 {
		return nil
	}
	b, err := json.Marshal(fix)
	if err != nil {
		panic(err) // a fix is decoded from JSON or read as JSON: it marshals
	}
	var out []syncerror.FieldChange
	_ = jsonvalue.Unmarshal(b, &out)
	return out
}

// Decide implements syncerror.DecisionStore.
func (s *ClaimStore) Decide(_ context.Context, tenantID, id string, from, to syncerror.Status, entry syncerror.HistoryEntry, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Status != from || c.Applied != nil {
		return syncerror.ErrStateChanged
	}
	c.Status = to
	c.History = append(append([]syncerror.HistoryEntry(nil), c.History...), entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return nil
}

// ExpiredLeases implements syncerror.DecisionStore.
func (s *ClaimStore) ExpiredLeases(_ context.Context, tenantID string, now time.Time, limit int) ([]syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []syncerror.Claim
	for _, c := range s.rows {
		if c.TenantID == tenantID && c.Status == syncerror.StatusApplying && c.Lease != nil && c.Lease.ExpiresAt.Before(now) {
			out = append(out, clone(c))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Watermark implements syncerror.Watermarks.
func (s *ClaimStore) Watermark(_ context.Context, tenantID string) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watermarks[tenantID], nil
}

// AdvanceWatermark implements syncerror.Watermarks.
func (s *ClaimStore) AdvanceWatermark(_ context.Context, tenantID string, prev, next time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.watermarks[tenantID].Equal(prev) {
		return syncerror.ErrStateChanged
	}
	s.watermarks[tenantID] = next.UTC()
	return nil
}

// Len returns how many rows the store holds.
func (s *ClaimStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}

// Queue is an in-memory syncerror.Queue that records what was sent; SetFail makes Send
// fail instead.
type Queue struct {
	mu   sync.Mutex
	sent []syncerror.Message
	fail error
}

var _ syncerror.Queue = (*Queue)(nil)

// Send implements syncerror.Queue.
func (q *Queue) Send(_ context.Context, m syncerror.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return q.fail
	}
	q.sent = append(q.sent, m)
	return nil
}

// Sent returns a copy of the messages sent so far.
func (q *Queue) Sent() []syncerror.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]syncerror.Message(nil), q.sent...)
}

// SetFail sets or clears the error Send returns.
func (q *Queue) SetFail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fail = err
}
