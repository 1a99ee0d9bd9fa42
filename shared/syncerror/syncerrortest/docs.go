package syncerrortest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

var _ syncerror.AssistStore = (*ClaimStore)(nil)

func (s *ClaimStore) docsOf(tenantID string) map[string]syncerror.Doc {
	if s.docs == nil {
		s.docs = map[string]map[string]syncerror.Doc{}
	}
	m := s.docs[tenantID]
	if m == nil {
		m = map[string]syncerror.Doc{}
		s.docs[tenantID] = m
	}
	return m
}

func cloneDoc(d syncerror.Doc) syncerror.Doc {
	d.Body = append([]byte(nil), d.Body...)
	return d
}

// GetDoc implements syncerror.DocStore.
func (s *ClaimStore) GetDoc(_ context.Context, tenantID, key string) (syncerror.Doc, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docsOf(tenantID)[key]
	if !ok || !syncerror.ValidDocKey(key) {
		return syncerror.Doc{}, syncerror.ErrNotFound
	}
	return cloneDoc(d), nil
}

// PutDoc implements syncerror.DocStore.
func (s *ClaimStore) PutDoc(_ context.Context, tenantID string, d syncerror.Doc, now time.Time) (syncerror.Doc, error) {
	if !syncerror.ValidDocKey(d.Key) {
		return syncerror.Doc{}, fmt.Errorf("document key %q is not a document's", d.Key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := s.docsOf(tenantID)
	if docs[d.Key].Version != d.Version {
		return syncerror.Doc{}, syncerror.ErrStateChanged
	}
	out := syncerror.Doc{Key: d.Key, Version: d.Version + 1, Body: append([]byte(nil), d.Body...), UpdatedAt: now.UTC()}
	docs[d.Key] = out
	return cloneDoc(out), nil
}

// DeleteDoc implements syncerror.DocStore.
func (s *ClaimStore) DeleteDoc(_ context.Context, tenantID, key string, version int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	docs := s.docsOf(tenantID)
	d, ok := docs[key]
	switch {
	case !ok:
		return syncerror.ErrNotFound
	case d.Version != version:
		return syncerror.ErrStateChanged
	}
	delete(docs, key)
	return nil
}

// ListDocs implements syncerror.DocStore; its cursor is an offset.
func (s *ClaimStore) ListDocs(_ context.Context, tenantID, prefix string, limit int, cursor string) ([]syncerror.Doc, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.docsOf(tenantID) {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 || n > len(keys) {
			return nil, "", syncerror.ErrBadCursor
		}
		start = n
	}
	end := min(start+limit, len(keys))
	out := make([]syncerror.Doc, 0, end-start)
	for _, k := range keys[start:end] {
		out = append(out, cloneDoc(s.docs[tenantID][k]))
	}
	next := ""
	if end < len(keys) {
		next = strconv.Itoa(end)
	}
	return out, next, nil
}

// MarkReverted implements syncerror.AssistStore.
func (s *ClaimStore) MarkReverted(_ context.Context, tenantID, id string, entry syncerror.HistoryEntry, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Status != syncerror.StatusApproved {
		return syncerror.ErrStateChanged
	}
	c.Status = syncerror.StatusReverted
	c.History = append(append([]syncerror.HistoryEntry(nil), c.History...), entry)
	c.UpdatedAt = now.UTC()
	s.rows[k] = c
	return nil
}
