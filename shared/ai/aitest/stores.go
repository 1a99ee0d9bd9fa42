// Package aitest holds in-memory fakes for testing code that uses package ai: trace and
// cost stores, an auditor, a prompt scanner that anonymizes configured canary strings, a
// provider that records what it was asked (reachable only through ai.Governed, like any
// provider), and a fake model server speaking the OpenAI and Bedrock wire formats. All
// are safe for concurrent use and copy what they return.
package aitest

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/syncassist/syncassist/shared/ai"
)

type key struct{ tenant, inference, op string }

// TraceStore is an in-memory ai.TraceStore, idempotent on (tenant, inference, operation)
// as the real one is.
type TraceStore struct {
	mu     sync.Mutex
	order  []key
	traces map[key]ai.Trace
	err    error
}

var _ ai.TraceStore = (*TraceStore)(nil)

// NewTraceStore returns an empty store.
func NewTraceStore() *TraceStore { return &TraceStore{traces: map[key]ai.Trace{}} }

// PutTrace implements ai.TraceStore.
func (s *TraceStore) PutTrace(_ context.Context, t ai.Trace) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	k := key{t.TenantID, t.InferenceID, t.Operation}
	if _, ok := s.traces[k]; !ok {
		s.order = append(s.order, k)
	}
	s.traces[k] = copyTrace(t)
	return nil
}

// FailWith makes every later put fail with err (nil: succeed again).
func (s *TraceStore) FailWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Traces returns every stored trace in the order first put.
func (s *TraceStore) Traces() []ai.Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ai.Trace, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, copyTrace(s.traces[k]))
	}
	return out
}

// Trace returns one trace.
func (s *TraceStore) Trace(tenantID, inferenceID, operation string) (ai.Trace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.traces[key{tenantID, inferenceID, operation}]
	return copyTrace(t), ok
}

func copyTrace(t ai.Trace) ai.Trace {
	t.Identity = copyIdentityRoles(t.Identity)
	t.Prompt = slices.Clone(t.Prompt)
	t.Response = slices.Clone(t.Response)
	t.DLPFindings = maps.Clone(t.DLPFindings)
	t.Steps = slices.Clone(t.Steps)
	for i := range t.Steps {
		t.Steps[i].Response = slices.Clone(t.Steps[i].Response)
	}
	return t
}

// CostStore is an in-memory ai.CostStore: the first record of a (tenant, inference,
// operation) stands, as in the DynamoDB store.
type CostStore struct {
	mu    sync.Mutex
	order []key
	costs map[key]ai.CostRecord
	err   error
}

var _ ai.CostStore = (*CostStore)(nil)

// NewCostStore returns an empty store.
func NewCostStore() *CostStore { return &CostStore{costs: map[key]ai.CostRecord{}} }

// PutCosts implements ai.CostStore: the records one by one, stopping at the first failure.
func (s *CostStore) PutCosts(ctx context.Context, cs []ai.CostRecord) error {
	for _, c := range cs {
		if err := s.PutCost(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// PutCost stores one record; the first of an (inference, operation) stands.
func (s *CostStore) PutCost(_ context.Context, c ai.CostRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	k := key{c.TenantID, c.InferenceID, c.Operation}
	if _, ok := s.costs[k]; ok {
		return nil // the first record stands, as in the real store: a replay never counts twice
	}
	s.order = append(s.order, k)
	c.Identity = copyIdentityRoles(c.Identity)
	s.costs[k] = c
	return nil
}

// FailWith makes every later put fail with err (nil: succeed again).
func (s *CostStore) FailWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Costs returns every stored record in the order first put.
func (s *CostStore) Costs() []ai.CostRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ai.CostRecord, 0, len(s.order))
	for _, k := range s.order {
		c := s.costs[k]
		c.Identity = copyIdentityRoles(c.Identity)
		out = append(out, c)
	}
	return out
}

// Auditor is an in-memory ai.Auditor that keeps every event.
type Auditor struct {
	mu     sync.Mutex
	events []ai.AuditEvent
	err    error
}

var _ ai.Auditor = (*Auditor)(nil)

// NewAuditor returns an auditor with no events.
func NewAuditor() *Auditor { return &Auditor{} }

// Audit implements ai.Auditor.
func (a *Auditor) Audit(_ context.Context, e ai.AuditEvent) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	a.events = append(a.events, copyEvent(e))
	return nil
}

// FailWith makes every later event fail with err (nil: succeed again).
func (a *Auditor) FailWith(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.err = err
}

// Events returns every event in order.
func (a *Auditor) Events() []ai.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ai.AuditEvent, len(a.events))
	for i, e := range a.events {
		out[i] = copyEvent(e)
	}
	return out
}

// EventsWithKey returns the events with one action key.
func (a *Auditor) EventsWithKey(actionKey string) []ai.AuditEvent {
	var out []ai.AuditEvent
	for _, e := range a.Events() {
		if e.ActionKey == actionKey {
			out = append(out, e)
		}
	}
	return out
}

// copyEvent deep-copies the details through JSON, which is also what the real audit log
// stores: a detail that does not survive JSON would not survive the log either.
func copyEvent(e ai.AuditEvent) ai.AuditEvent {
	e.Identity = copyIdentityRoles(e.Identity)
	if e.Details != nil {
		raw, err := json.Marshal(e.Details)
		d := map[string]any{}
		if err == nil && json.Unmarshal(raw, &d) == nil {
			e.Details = d
		} else {
			e.Details = maps.Clone(e.Details)
		}
	}
	return e
}
