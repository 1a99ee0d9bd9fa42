package flow

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// Cycles named when a flow is saved. Two-way sync of a field is legitimate (the
// ownership manifest decides which system's value wins), so a flow that closes a cycle
// is saved; the answer names the cycle and who owns each field in it, so that the admin
// sees what the guard will break at run time (trace.go) and which system wins.

// Cycle is a loop of flows the saved flow closes: a value it writes can come back,
// through the other flows, to the endpoint (system and entity) it was read from.
type Cycle struct {
	// Flows are the flow ids in order, the saved flow first.
	Flows []string `json:"flows"`
	// Endpoints are "system/entity" in order, from the saved flow's source back to it.
	Endpoints []string `json:"endpoints"`
	// Fields are the field chains the cycle carries: each from a field of the saved
	// flow's source to the field of it the value comes back to, which may be another.
	Fields [][]CycleField `json:"fields"`
	// Summary says the same in one line, for the editor and the audit record.
	Summary string `json:"summary"`
}

// CycleField is one field of a chain and its owner in the tenant's manifest.
type CycleField struct {
	System connector.System `json:"system"`
	Entity string           `json:"entity"`
	Field  string           `json:"field"`
	// Owner and Policy are the manifest's entry for the field; empty when the manifest
	// declares no owner (every system's value is written).
	Owner  connector.System  `json:"owner,omitempty"`
	Policy governance.Policy `json:"policy,omitempty"`
}

// Bounds of the search: enough for any tenant's real flows (at most MaxFlows), and a
// ceiling for a pathological graph of many parallel flows.
const (
	maxCycles      = 10
	maxCycleVisits = 10_000
)

// FindCycles names the cycles saved closes among flows: the saved flow whether or not it
// is enabled (the admin learns before enabling it), the others when enabled. The stored
// version of saved in flows is ignored. Owners are left for NameOwners.
func FindCycles(saved Flow, flows []Flow) []Cycle {
	var others []Flow
	for _, g := range flows {
		if g.Enabled && g.ID != saved.ID {
			others = append(others, g)
		}
	}
	slices.SortFunc(others, func(a, b Flow) int { return strings.Compare(a.ID, b.ID) })
	s := &cycleSearch{start: endpointKey(saved.Source), others: others}
	var chains [][]CycleField
	for _, tf := range sortedKeys(saved.Mapping) {
		chains = append(chains, []CycleField{field(saved.Source, saved.Mapping[tf]), field(saved.Target, tf)})
	}
	s.walk([]Flow{saved}, saved.Target, chains)
	return s.found
}

type cycleSearch struct {
	start  string
	others []Flow
	found  []Cycle
	visits int
}

// walk extends the path of flows ending at at, whose values sit in chains' last fields,
// by each flow reading at; a flow back to the start closes a cycle.
func (s *cycleSearch) walk(path []Flow, at Endpoint, chains [][]CycleField) {
	for _, g := range s.others {
		if len(s.found) >= maxCycles || s.visits >= maxCycleVisits {
			return
		}
		if endpointKey(g.Source) != endpointKey(at) || onPath(path, g) {
			continue
		}
		s.visits++
		next := extend(chains, g)
		if len(next) == 0 {
			continue
		}
		p := append(slices.Clip(path), g)
		if endpointKey(g.Target) == s.start {
			s.found = append(s.found, newCycle(p, next))
			continue
		}
		if !visited(p[:len(p)-1], g.Target) {
			s.walk(p, g.Target, next)
		}
	}
}

// extend carries each chain through g's mapping: every target field g fills from the
// chain's last field.
func extend(chains [][]CycleField, g Flow) [][]CycleField {
	var out [][]CycleField
	for _, c := range chains {
		last := c[len(c)-1].Field
		for _, tf := range sortedKeys(g.Mapping) {
			if g.Mapping[tf] == last {
				out = append(out, append(slices.Clip(c), field(g.Target, tf)))
			}
		}
	}
	return out
}

func onPath(path []Flow, g Flow) bool {
	return slices.ContainsFunc(path, func(f Flow) bool { return f.ID == g.ID })
}

// visited reports whether the path already passed e (a cycle not through the start,
// which its own flows named when they were saved).
func visited(path []Flow, e Endpoint) bool {
	return slices.ContainsFunc(path, func(f Flow) bool { return endpointKey(f.Source) == endpointKey(e) })
}

func newCycle(path []Flow, chains [][]CycleField) Cycle {
	c := Cycle{Endpoints: []string{path[0].Source.String()}, Fields: chains}
	for _, f := range path {
		c.Flows = append(c.Flows, f.ID)
		c.Endpoints = append(c.Endpoints, f.Target.String())
	}
	var over []string
	for _, ch := range chains {
		names := make([]string, len(ch))
		for i, f := range ch {
			names[i] = f.Field
		}
		over = append(over, strings.Join(names, " → "))
	}
	c.Summary = fmt.Sprintf("%s (flows %s) over %s", strings.Join(c.Endpoints, " → "), strings.Join(c.Flows, ", "),
		strings.Join(over, "; "))
	return c
}

// NameOwners fills each field's owner from the manifest.
func NameOwners(cycles []Cycle, m governance.Manifest) {
	for i := range cycles {
		for _, ch := range cycles[i].Fields {
			for j := range ch {
				if e, ok := m.Owner(ch[j].Entity, ch[j].Field); ok {
					ch[j].Owner, ch[j].Policy = e.Owner, e.Policy
				}
			}
		}
	}
}

func field(e Endpoint, name string) CycleField {
	return CycleField{System: e.System, Entity: e.Entity, Field: name}
}

// endpointKey compares endpoints as the guard's hop check does: entities without case.
func endpointKey(e Endpoint) string { return string(e.System) + "/" + strings.ToLower(e.Entity) }

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// cyclesOf are the cycles f closes among the tenant's flows, with their owners. The
// manifest is read only when there is a cycle to name.
func (s *Service) cyclesOf(ctx context.Context, tenantID string, f Flow, all []Flow) ([]Cycle, error) {
	cycles := FindCycles(f, all)
	if len(cycles) == 0 || s.Manifests == nil {
		return cycles, nil
	}
	m, err := s.Manifests.Manifest(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("read the ownership manifest: %w", err)
	}
	NameOwners(cycles, m)
	return cycles, nil
}

// SavedFlow is the answer to a PUT of a flow: the flow as stored and the cycles it
// closes (empty when none).
type SavedFlow struct {
	Flow
	Cycles []Cycle `json:"cycles"`
}

func cycleSummaries(cycles []Cycle) []string {
	out := make([]string, len(cycles))
	for i, c := range cycles {
		out[i] = c.Summary
	}
	return out
}
