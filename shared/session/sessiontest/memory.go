// Package sessiontest provides an in-memory session.Store for unit tests and the contract
// suite every session.Store must pass, store operations and the session lifecycle on top.
package sessiontest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/session"
)

type tokenKey struct{ tenant, hash string }
type contextKey struct{ tenant, session, id string }
type requestKey struct{ tenant, id string }

// Store is an in-memory session.Store, safe for concurrent use. It copies what it stores
// and what it returns.
type Store struct {
	mu       sync.Mutex
	sessions map[tokenKey]session.Session
	contexts map[contextKey]session.EmbeddedContext
	requests map[requestKey]time.Time
}

var _ session.Store = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{
		sessions: map[tokenKey]session.Session{},
		contexts: map[contextKey]session.EmbeddedContext{},
		requests: map[requestKey]time.Time{},
	}
}

func cloneSession(s session.Session) session.Session {
	s.Roles = slices.Clone(s.Roles)
	s.Modules = slices.Clone(s.Modules)
	return s
}

// CreateSession implements session.Store.
func (s *Store) CreateSession(_ context.Context, sess session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tokenKey{sess.TenantID, sess.TokenHash}
	if _, ok := s.sessions[k]; ok {
		return session.ErrExists
	}
	s.sessions[k] = cloneSession(sess)
	return nil
}

// SessionByTokenHash implements session.Store.
func (s *Store) SessionByTokenHash(_ context.Context, tenantID, tokenHash string) (session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[tokenKey{tenantID, tokenHash}]
	if !ok {
		return session.Session{}, session.ErrNotFound
	}
	return cloneSession(sess), nil
}

// DeleteSession implements session.Store.
func (s *Store) DeleteSession(_ context.Context, tenantID, tokenHash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := tokenKey{tenantID, tokenHash}
	if _, ok := s.sessions[k]; !ok {
		return session.ErrNotFound
	}
	delete(s.sessions, k)
	return nil
}

// CreateContext implements session.Store.
func (s *Store) CreateContext(_ context.Context, c session.EmbeddedContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := contextKey{c.TenantID, c.SessionID, c.ID}
	if _, ok := s.contexts[k]; ok {
		return session.ErrExists
	}
	s.contexts[k] = c
	return nil
}

// Context implements session.Store.
func (s *Store) Context(_ context.Context, tenantID, sessionID, contextID string) (session.EmbeddedContext, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.contexts[contextKey{tenantID, sessionID, contextID}]
	if !ok {
		return session.EmbeddedContext{}, session.ErrNotFound
	}
	return c, nil
}

// DeleteContexts implements session.Store.
func (s *Store) DeleteContexts(_ context.Context, tenantID, sessionID string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k := range s.contexts {
		if k.tenant == tenantID && k.session == sessionID {
			delete(s.contexts, k)
			n++
		}
	}
	return n, nil
}

// ClaimRequest implements session.Store.
func (s *Store) ClaimRequest(_ context.Context, tenantID, requestID string, expiresAt time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := requestKey{tenantID, requestID}
	if _, ok := s.requests[k]; ok {
		return session.ErrExists
	}
	s.requests[k] = expiresAt
	return nil
}

// ReleaseRequest implements session.Store.
func (s *Store) ReleaseRequest(_ context.Context, tenantID, requestID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, requestKey{tenantID, requestID})
	return nil
}

// DeleteExpired implements session.Store.
func (s *Store) DeleteExpired(_ context.Context, tenantID string, now time.Time) (session.Reaped, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r session.Reaped
	for k, v := range s.sessions {
		if k.tenant == tenantID && session.Expired(v.ExpiresAt, now) {
			delete(s.sessions, k)
			r.Tokens++
		}
	}
	for k, v := range s.contexts {
		if k.tenant == tenantID && session.Expired(v.ExpiresAt, now) {
			delete(s.contexts, k)
			r.Contexts++
		}
	}
	for k, exp := range s.requests {
		if k.tenant == tenantID && session.Expired(exp, now) {
			delete(s.requests, k)
			r.Requests++
		}
	}
	return r, nil
}

// Dump returns every stored record, printed with its field names, sorted; tests search it
// for values that must never be stored.
func (s *Store) Dump() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, v := range s.sessions {
		out = append(out, fmt.Sprintf("%+v", v))
	}
	for _, v := range s.contexts {
		out = append(out, fmt.Sprintf("%+v", v))
	}
	for k, v := range s.requests {
		out = append(out, fmt.Sprintf("request %s %s %s", k.tenant, k.id, v))
	}
	sort.Strings(out)
	return out
}

// Counts returns how many sessions, contexts and request ids are stored.
func (s *Store) Counts() (sessions, contexts, requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions), len(s.contexts), len(s.requests)
}

// Sessions returns the stored sessions of tenantID, by id.
func (s *Store) Sessions(tenantID string) []session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []session.Session
	for k, v := range s.sessions {
		if k.tenant == tenantID {
			out = append(out, cloneSession(v))
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].ID, out[j].ID) < 0 })
	return out
}
