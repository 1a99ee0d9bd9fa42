// Package flowtest holds in-memory fakes of the flow feature's stores for unit tests,
// and the contract suites each fake shares with its DynamoDB store.
package flowtest

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/syncassist/syncassist/shared/flow"
)

// XRefs is an in-memory flow.XRefStore. It is safe for concurrent use.
type XRefs struct {
	mu      sync.Mutex
	entries map[xrefKey]flow.XRef
}

var _ flow.XRefStore = (*XRefs)(nil)

type xrefKey struct {
	tenant string
	src    flow.Ref
	target flow.Endpoint
}

func keyOf(tenantID string, e flow.XRef) xrefKey {
	return xrefKey{tenantID, e.Source, flow.Endpoint{System: e.Target.System, Entity: e.Target.Entity}}
}

func (s *XRefs) init() {
	if s.entries == nil {
		s.entries = map[xrefKey]flow.XRef{}
	}
}

// XRef implements flow.XRefStore.
func (s *XRefs) XRef(_ context.Context, tenantID string, src flow.Ref, target flow.Endpoint) (flow.XRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[xrefKey{tenantID, src, target}]
	if !ok {
		return flow.XRef{}, flow.ErrNotFound
	}
	return e, nil
}

// ClaimXRef implements flow.XRefStore.
func (s *XRefs) ClaimXRef(_ context.Context, tenantID string, e flow.XRef) (flow.XRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	if have, ok := s.entries[keyOf(tenantID, e)]; ok {
		return have, flow.ErrTaken
	}
	s.entries[keyOf(tenantID, e)] = e
	return e, nil
}

// UpdateXRef implements flow.XRefStore.
func (s *XRefs) UpdateXRef(_ context.Context, tenantID string, e flow.XRef, claimedBy string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replacePending(tenantID, e, claimedBy)
}

func (s *XRefs) replacePending(tenantID string, e flow.XRef, claimedBy string) error {
	have, ok := s.entries[keyOf(tenantID, e)]
	if !ok || have.State != flow.XRefPending || have.ClaimedBy != claimedBy {
		return flow.ErrTaken
	}
	s.entries[keyOf(tenantID, e)] = e
	return nil
}

// LinkXRef implements flow.XRefStore.
func (s *XRefs) LinkXRef(_ context.Context, tenantID string, e flow.XRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	if have, ok := s.entries[keyOf(tenantID, e)]; !ok || have.State != flow.XRefPending || have.ClaimedBy != e.LinkedBy {
		return flow.ErrTaken
	}
	rev := flow.ReverseXRef(e)
	if have, ok := s.entries[keyOf(tenantID, rev)]; !ok || have.State != flow.XRefLinked {
		s.entries[keyOf(tenantID, rev)] = rev
	}
	return s.replacePending(tenantID, e, e.LinkedBy)
}

// ReleaseXRef implements flow.XRefStore.
func (s *XRefs) ReleaseXRef(_ context.Context, tenantID string, src flow.Ref, target flow.Endpoint, runID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := xrefKey{tenantID, src, target}
	if have, ok := s.entries[k]; ok && have.State == flow.XRefPending && have.ClaimedBy == runID {
		delete(s.entries, k)
	}
	return nil
}

// XRefsOf implements flow.XRefStore.
func (s *XRefs) XRefsOf(_ context.Context, tenantID string, src flow.Ref) ([]flow.XRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []flow.XRef{}
	for k, e := range s.entries {
		if k.tenant == tenantID && k.src == src {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b flow.XRef) int {
		return cmp.Or(cmp.Compare(a.Target.System, b.Target.System), cmp.Compare(a.Target.Entity, b.Target.Entity))
	})
	return out, nil
}

// SwapXRef implements flow.XRefStore; entries compare as their JSON, as the DynamoDB
// store's documents do.
func (s *XRefs) SwapXRef(_ context.Context, tenantID string, prev, next *flow.XRef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	at := prev
	if at == nil {
		at = next
	}
	k := keyOf(tenantID, *at)
	have, ok := s.entries[k]
	switch {
	case prev == nil && ok, prev != nil && !ok:
		return flow.ErrTaken
	case prev != nil:
		a, _ := json.Marshal(have)
		b, _ := json.Marshal(*prev)
		if string(a) != string(b) {
			return flow.ErrTaken
		}
	}
	if next == nil {
		delete(s.entries, k)
	} else {
		s.entries[k] = *next
	}
	return nil
}
