package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// A dry run shows an admin what a flow would do with one source record, writing nothing:
// its filter, its mapping, where the counterpart is (the cross-reference, the vendor's
// upsert, a lookup, a create), the target's current values beside the ones the flow would
// write, and the guard's verdict per field, evaluated without writing or recording
// (governance.Guard.Evaluate). Everything it does at the systems is a read.
//
// The record is a sample given in the request (fields and an id), or, when the request
// names only an id, the record as the source system holds it now, read through its
// connector. There is no "latest record" default: not every vendor can list its newest
// record cheaply, and a dry run of a record nobody chose would show nothing in particular.

// Evaluator says what the guard would decide for a write; *governance.Guard implements it.
type Evaluator interface {
	Evaluate(ctx context.Context, id identity.Identity, req governance.WriteRequest) (governance.Verdict, error)
}

// Reader reads one record through the tenant's connector (a read, needing no guard).
type Reader interface {
	Get(ctx context.Context, tenantID string, system connector.System, entity, id string) (connector.Record, error)
}

// DryRunRequest is the body of a dry run.
type DryRunRequest struct {
	RecordID string `json:"recordId"`
	// Fields are the sample record's fields; absent, the record is read from the source.
	Fields map[string]any `json:"fields,omitempty"`
	// Flow is the definition as the admin is editing it, unsaved: the dry run runs it
	// instead of the stored one (which need not exist yet). Its id is the path's.
	Flow *Flow `json:"flow,omitempty"`
}

// Target actions of a dry run beyond the runs' own.
const (
	DryUpdate = "update"
	DryCreate = "create"
	DryUpsert = "upsert"
	DryNone   = "none"
)

// Dry-run decisions beyond the guard's verdicts (governance.Verdict*).
const (
	DecisionSkipped       = "skipped"
	DecisionNoCounterpart = "no_counterpart"
	DecisionAmbiguous     = "ambiguous"
	DecisionWaiting       = "waiting"
)

// DryRunTarget is where the write would go.
type DryRunTarget struct {
	System connector.System `json:"system"`
	Entity string           `json:"entity"`
	// ID is the target record's id when known (empty for a create, or an upsert whose
	// match the vendor cannot look up first).
	ID     string `json:"id,omitempty"`
	Action string `json:"action"`
	// How says how the target was found.
	How string `json:"how"`
}

// DryRunField is one target field of the write.
type DryRunField struct {
	Field       string `json:"field"`
	SourceField string `json:"sourceField,omitempty"`
	Value       any    `json:"value"`
	// Current is the target's value now, when the target record was read.
	Current any  `json:"current,omitempty"`
	Changed bool `json:"changed"`
	governance.FieldVerdict
}

// DryRun is what a flow would do with one record.
type DryRun struct {
	FlowID string `json:"flowId"`
	Source Ref    `json:"source"`
	// SampleFrom is "request" (the fields given) or "source" (read from the system).
	SampleFrom string       `json:"sampleFrom"`
	Target     DryRunTarget `json:"target"`
	// Decision is a guard verdict (written, held, rejected, loop, dlp_blocked,
	// owned_elsewhere) or skipped, no_counterpart, ambiguous, waiting.
	Decision     string         `json:"decision"`
	Reason       string         `json:"reason,omitempty"`
	Payload      map[string]any `json:"payload"`
	Fields       []DryRunField  `json:"fields"`
	NotEvaluated []string       `json:"notEvaluated"`
	// Missing are the mapped fields the source record does not carry: the flow would
	// leave their target fields alone, which an admin should see rather than guess.
	Missing []MissingField `json:"missingFields"`
}

// MissingField is a mapping whose source field the record lacks.
type MissingField struct {
	Field       string `json:"field"`
	SourceField string `json:"sourceField"`
}

// missingFields lists f's mappings whose source field fields lacks, by target field.
func missingFields(f Flow, fields map[string]any) []MissingField {
	out := []MissingField{}
	for _, target := range slices.Sorted(maps.Keys(f.Mapping)) {
		if _, ok := fields[f.Mapping[target]]; !ok {
			out = append(out, MissingField{Field: target, SourceField: f.Mapping[target]})
		}
	}
	return out
}

// errDryRunInput is a dry run whose record cannot be had (the source read failed).
var errDryRunInput = errors.New("the source record cannot be read")

// DryRun runs f on one record without writing.
func (s *Service) DryRun(ctx context.Context, tenantID string, f Flow, in DryRunRequest) (DryRun, error) {
	out := DryRun{FlowID: f.ID, Source: Ref{System: f.Source.System, Entity: f.Source.Entity, ID: in.RecordID},
		SampleFrom: "request", Target: DryRunTarget{System: f.Target.System, Entity: f.Target.Entity, Action: DryNone},
		Payload: map[string]any{}, Fields: []DryRunField{}, NotEvaluated: []string{}, Missing: []MissingField{}}
	fields := in.Fields
	if fields == nil {
		rec, err := s.Reader.Get(ctx, tenantID, f.Source.System, f.Source.Entity, in.RecordID)
		if err != nil {
			return out, fmt.Errorf("%w: %w", errDryRunInput, err)
		}
		fields, out.SampleFrom = rec.Fields, "source"
	}
	out.Missing = missingFields(f, fields)
	x := s.Exec
	f.Enabled = true // a disabled flow is dry-run as it would run once enabled
	ev := Event{EventID: "dry-run", Entity: f.Source.Entity, RecordID: in.RecordID, ChangedAt: s.now(), Fields: fields}
	trail, _, err := x.trailFor(ctx, tenantID, f.Source.System, ev, []Flow{f}, f.TriggerOrDefault())
	if err != nil {
		return out, err
	}
	all, err := s.Store.Flows(ctx, tenantID)
	if err != nil {
		return out, err
	}
	all = slices.DeleteFunc(all, func(g Flow) bool { return g.ID == f.ID })
	r, _ := x.newRun(tenantID, f.Source.System, f, append(all, f), ev, trail, f.TriggerOrDefault(), s.now())
	if r.Pending == nil {
		out.Decision, out.Reason = DecisionSkipped, r.Decision
		return out, nil
	}
	req, anchor, stop, err := x.dryTarget(ctx, &r, &out.Target)
	if err != nil || stop != "" {
		out.Decision, out.Reason = stop, out.Target.How
		return out, err
	}
	full := completeRequest(r, req, anchor)
	full.IdempotencyKey = "dry-run:" + r.ID
	v, err := s.Evaluator.Evaluate(ctx, runIdentity(r), full)
	if err != nil {
		return out, err
	}
	out.Decision, out.Reason, out.NotEvaluated = v.Decision, v.Reason, v.NotEvaluated
	s.describeFields(ctx, tenantID, f, full, v, &out)
	return out, nil
}

// dryTarget finds the target as write (xref_exec.go) would, reading only: the request to
// evaluate and its loop anchor, or the decision that stops the run before any write.
func (x *Executor) dryTarget(ctx context.Context, r *Run, t *DryRunTarget) (req governance.WriteRequest, anchor, stop string, err error) {
	m, key := r.Pending.Match, r.Pending.Key
	if m == nil {
		t.ID, t.Action, t.How = r.RecordID, DryUpdate, "the flow has no match: the target record has the source record's id"
		return governance.WriteRequest{RecordID: r.RecordID}, r.RecordID, "", nil
	}
	src := Ref{System: r.Source.System, Entity: r.Source.Entity, ID: r.RecordID}
	e, err := x.XRefs.XRef(ctx, r.TenantID, src, r.Target)
	switch {
	case err == nil && e.State == XRefLinked:
		t.ID, t.Action, t.How = e.Target.ID, DryUpdate, "linked in the cross-reference"
		return governance.WriteRequest{RecordID: e.Target.ID}, e.Anchor, "", nil
	case err == nil:
		t.How = "run " + e.ClaimedBy + " is finding or creating the counterpart now"
		return req, "", DecisionWaiting, nil
	case !errors.Is(err, ErrNotFound):
		return req, "", "", err
	}
	if m.By != MatchNone && key == "" {
		t.How = "the record does not carry " + m.keyName() + ", which the match needs"
		return req, "", DecisionNoCounterpart, nil
	}
	var ids []string
	if m.By != MatchNone {
		ids, err = x.Finder.Find(ctx, r.TenantID, r.Target.System, r.Target.Entity, m.Field, key)
		if err != nil && !errors.Is(err, connector.ErrUnsupported) {
			return req, "", "", fmt.Errorf("find %s: %w", r.Target, err)
		}
	}
	switch {
	case m.By == MatchExternalID && upserts(r.Target.System):
		t.Action, t.How = DryUpsert, "the vendor's upsert by "+m.Field+" = "+key
		if len(ids) == 1 {
			t.ID, t.How = ids[0], t.How+" (it updates the record found by that key)"
		} else if err == nil && len(ids) == 0 {
			t.How += " (no record has that key: it creates one)"
		}
		return governance.WriteRequest{RecordID: key, UpsertKey: m.Field}, src.ID, "", nil
	case len(ids) > 1:
		t.How = "several " + r.Target.String() + " records have this " + m.Field
		return req, "", DecisionAmbiguous, nil
	case len(ids) == 1:
		t.ID, t.Action, t.How = ids[0], DryUpdate, "found by "+m.Field+" = "+key
		return governance.WriteRequest{RecordID: ids[0]}, src.ID, "", nil
	case !m.Create:
		t.How = "no counterpart found and the flow does not create one"
		return req, "", DecisionNoCounterpart, nil
	}
	fields := r.Pending.Fields
	if m.By != MatchNone {
		fields = maps.Clone(fields)
		if _, ok := fields[m.Field]; !ok {
			fields[m.Field] = r.Pending.keyField()
		}
	}
	t.Action, t.How = DryCreate, "no counterpart found: the flow creates one"
	return governance.WriteRequest{Create: true, Fields: fields}, src.ID, "", nil
}

// describeFields lists each target field with its value, the target's current value when
// the target record can be read, and the guard's verdict; the payload is what would be sent.
func (s *Service) describeFields(ctx context.Context, tenantID string, f Flow, req governance.WriteRequest, v governance.Verdict, out *DryRun) {
	var current map[string]any
	if out.Target.ID != "" && s.Reader != nil {
		if rec, err := s.Reader.Get(ctx, tenantID, f.Target.System, f.Target.Entity, out.Target.ID); err == nil {
			current = rec.Fields
		} else {
			out.NotEvaluated = append(out.NotEvaluated, "current values ("+connector.ErrorKind(err)+")")
		}
	}
	for _, fv := range v.Fields {
		d := DryRunField{Field: fv.Field, SourceField: f.Mapping[fv.Field], Value: req.Fields[fv.Field], FieldVerdict: fv}
		d.Current = current[fv.Field]
		d.Changed = current == nil || !sameJSON(d.Current, d.Value)
		if fv.Verdict == governance.VerdictWritten {
			out.Payload[fv.Field] = d.Value
		}
		out.Fields = append(out.Fields, d)
	}
}
