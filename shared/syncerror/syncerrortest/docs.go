package syncerrortest

import (
	"context"
	"fmt"
	"slices"
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
	out := syncerror.Doc{Key: d.Key, Version: d.Version + 1, Body: append([]byte(nil), d.Body...), UpdatedAt: now.UTC(), Sort: d.Sort.UTC()}
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

// ListDocsNewest implements syncerror.DocStore; its cursor is the last position served,
// "<sort time>#<key>", as the DynamoDB store's is.
func (s *ClaimStore) ListDocsNewest(_ context.Context, tenantID, prefix string, limit int, cursor string) ([]syncerror.Doc, string, error) {
	if syncerror.DocPrefix(prefix) != prefix {
		return nil, "", fmt.Errorf("document prefix %q is not a listing's", prefix)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Each document's position once: a listing of thousands sorts without formatting times.
	type placed struct {
		pos string
		doc syncerror.Doc
	}
	var docs []placed
	for k, d := range s.docsOf(tenantID) {
		if strings.HasPrefix(k, prefix) && !d.Sort.IsZero() {
			docs = append(docs, placed{d.Sort.UTC().Format(sortLayout) + "#" + d.Key, d})
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].pos > docs[j].pos })
	if cursor != "" {
		at, key, ok := strings.Cut(cursor, "#")
		if _, err := time.Parse(sortLayout, at); !ok || err != nil || len(at) != len(sortLayout) || !strings.HasPrefix(key, prefix) {
			return nil, "", syncerror.ErrBadCursor
		}
		i := 0
		for i < len(docs) && docs[i].pos >= cursor {
			i++
		}
		docs = docs[i:]
	}
	next := ""
	if len(docs) > limit {
		docs, next = docs[:limit], docs[limit-1].pos
	}
	out := make([]syncerror.Doc, len(docs))
	for i, d := range docs {
		out[i] = cloneDoc(d.doc)
	}
	return out, next, nil
}

// sortLayout is a fixed-width time, so that positions compare as strings.
const sortLayout = "2006-01-02T15:04:05.000000000Z"

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

// MarkRevertSent implements syncerror.AssistStore: m joins the row's marks, as a string
// set's ADD does in the DynamoDB store (a mark it has already is not added twice).
func (s *ClaimStore) MarkRevertSent(_ context.Context, tenantID, id string, w syncerror.AppliedWrite, m syncerror.RevertMark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Status != syncerror.StatusApproved || c.Applied == nil || c.Applied.Key != w.Key || !c.Applied.At.Equal(w.At) {
		return syncerror.ErrStateChanged
	}
	m.At = m.At.UTC()
	a := *c.Applied
	if slices.IndexFunc(a.RevertMarks, sameMark(m)) < 0 {
		a.RevertMarks = append(slices.Clone(a.RevertMarks), m)
		syncerror.SortRevertMarks(a.RevertMarks)
	}
	c.Applied = &a
	s.rows[k] = c
	return nil
}

// ClearRevertSent implements syncerror.AssistStore: m leaves the row's marks, the others
// stay.
func (s *ClaimStore) ClearRevertSent(_ context.Context, tenantID, id string, m syncerror.RevertMark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(tenantID, id)
	c, ok := s.rows[k]
	if !ok {
		return syncerror.ErrNotFound
	}
	if c.Applied == nil || slices.IndexFunc(c.Applied.RevertMarks, sameMark(m)) < 0 {
		return syncerror.ErrStateChanged
	}
	a := *c.Applied
	a.RevertMarks = slices.DeleteFunc(slices.Clone(a.RevertMarks), sameMark(m))
	if len(a.RevertMarks) == 0 {
		a.RevertMarks = nil
	}
	c.Applied = &a
	s.rows[k] = c
	return nil
}

// sameMark matches m whole (its time to the nanosecond and its token), as the DynamoDB
// store compares the element "<time>#<token>".
func sameMark(m syncerror.RevertMark) func(syncerror.RevertMark) bool {
	return func(o syncerror.RevertMark) bool { return o.Token == m.Token && o.At.Equal(m.At) }
}
