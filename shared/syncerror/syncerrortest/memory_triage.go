package syncerrortest

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// listed applies ListQuery's filters other than status and since, as the DynamoDB store's
// FilterExpression does.
func listed(c syncerror.Claim, q syncerror.ListQuery) bool {
	if q.Class != "" && (c.Proposal == nil || c.Proposal.Class != q.Class) {
		return false
	}
	if q.Search != "" {
		hay := strings.ToLower(c.Record.ErrorID + "\n" + c.Record.RecordID + "\n" + c.Record.Message)
		if !strings.Contains(hay, strings.ToLower(q.Search)) {
			return false
		}
	}
	switch {
	case q.Unassigned && c.Triage.Assignee != "":
		return false
	case q.Assignee != "" && c.Triage.Assignee != q.Assignee:
		return false
	}
	if len(q.Systems) > 0 {
		name := strings.ToLower(strings.TrimSpace(c.Record.ExternalSystem))
		if !slices.ContainsFunc(q.Systems, func(n string) bool { return strings.ToLower(strings.TrimSpace(n)) == name }) {
			return false
		}
	} else if q.System != "" && c.Record.ExternalSystem != q.System {
		return false
	}
	return q.Tag == "" || slices.Contains(c.Triage.Tags, q.Tag)
}

// triage applies change to the row under the lock with the history entry; change returns
// an error to leave the row as it was.
func (s *ClaimStore) triage(tenantID, id string, entry syncerror.HistoryEntry, now time.Time, change func(*syncerror.Triage) error) (syncerror.Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	c = clone(c)
	if err := change(&c.Triage); err != nil {
		return syncerror.Claim{}, err
	}
	c.History = append(c.History, entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return clone(c), nil
}

// Assign implements syncerror.TriageStore.
func (s *ClaimStore) Assign(_ context.Context, tenantID, id, from, to string, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	return s.triage(tenantID, id, entry, now, func(t *syncerror.Triage) error {
		if t.Assignee != from {
			return syncerror.ErrStateChanged
		}
		t.Assignee = to
		return nil
	})
}

// Tag implements syncerror.TriageStore.
func (s *ClaimStore) Tag(_ context.Context, tenantID, id, tag string, on bool, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	return s.triage(tenantID, id, entry, now, func(t *syncerror.Triage) error {
		i, has := slices.BinarySearch(t.Tags, tag)
		switch {
		case on && !has && len(t.Tags) >= syncerror.MaxTags:
			return syncerror.ErrTriageFull
		case on && !has:
			t.Tags = slices.Insert(t.Tags, i, tag)
		case !on && has:
			t.Tags = slices.Delete(t.Tags, i, i+1)
		}
		if len(t.Tags) == 0 {
			t.Tags = nil
		}
		return nil
	})
}

// AddNote implements syncerror.TriageStore.
func (s *ClaimStore) AddNote(_ context.Context, tenantID, id string, n syncerror.Note, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	return s.triage(tenantID, id, entry, now, func(t *syncerror.Triage) error {
		if len(t.Notes) >= syncerror.MaxNotes {
			return syncerror.ErrTriageFull
		}
		t.Notes = append(t.Notes, n)
		return nil
	})
}
