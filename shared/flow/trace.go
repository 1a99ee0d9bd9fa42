package flow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// Where a run's values came from. Every flow write carries, per target field, the trace
// of its value (governance.Trace): the origin and every field a flow wrote it to since.
// The guard breaks a field whose value would return to an endpoint it came from, and
// leaves each written value's trace on the target record's trail. When the target system
// reports that record's change (pushed or polled: the report is the echo of the write),
// the executor reads the record's trail: a field holding the value a flow wrote there
// carries that write's hops on; any other value is a change made in the source system
// and starts a trace of its own.

// TrailReader reads what the guard's trail knows of a record: per field, the newest value
// hash and hops since since. governance.Trails implements it.
type TrailReader interface {
	Trail(ctx context.Context, tenant string, system connector.System, entity, record string, since time.Time) (map[string]governance.FieldTrail, error)
}

// DefaultTrailWindow is how long after a flow wrote a value its echo is recognised as
// one. Echoes that are pushed come within seconds; polled ones wait for the next poll
// (every 30 minutes, and a poll that reaches its budget leaves the rest to the next), so
// two hours leave room for four polls. The window is not a risk to real changes: a value
// is taken for an echo only while it equals the newest value the trail knows for its
// field, and a local change recorded since (Trace.Replaced) supersedes the flow's value.
const DefaultTrailWindow = 2 * time.Hour

// trailFor reads the trail of the event's record when some flow will write for it; nil
// when none will, or no trail is kept (Executor.Trails nil). A failed read fails the
// event: without the trail the executor cannot tell an echo from a change, and writing
// blindly could start the loop it exists to stop. When the reader gives the read itself
// (governance.Trails), it is returned too: the guard's reciprocal check of the runs'
// first writes reuses it rather than reading the ledger again (issue 37 §3).
func (x *Executor) trailFor(ctx context.Context, tenantID string, system connector.System, ev Event, flows []Flow, trigger Trigger) (map[string]governance.FieldTrail, *governance.TrailRead, error) {
	if x.Trails == nil {
		return nil, nil, nil
	}
	for _, f := range flows {
		if ok, skip := f.runsFor(system, ev, trigger); ok && skip == "" {
			window := x.TrailWindow
			if window <= 0 {
				window = DefaultTrailWindow
			}
			since := x.now().Add(-window)
			if rs, ok := x.Trails.(trailReads); ok {
				read, err := rs.Read(ctx, tenantID, system, ev.Entity, ev.RecordID, since)
				if err != nil {
					return nil, nil, fmt.Errorf("read the trail of %s/%s: %w", system, ev.Entity, err)
				}
				return read.Fields(), read, nil
			}
			trail, err := x.Trails.Trail(ctx, tenantID, system, ev.Entity, ev.RecordID, since)
			if err != nil {
				return nil, nil, fmt.Errorf("read the trail of %s/%s: %w", system, ev.Entity, err)
			}
			return trail, nil, nil
		}
	}
	return nil, nil, nil
}

// trailReads is a TrailReader that also answers the read itself; governance.Trails is one.
type trailReads interface {
	Read(ctx context.Context, tenant string, system connector.System, entity, record string, since time.Time) (*governance.TrailRead, error)
}

// traces are the traces of the values f writes for ev, by target field.
func (f Flow) traces(ev Event, trail map[string]governance.FieldTrail) map[string]governance.Trace {
	out := map[string]governance.Trace{}
	for target, source := range f.Mapping {
		v, ok := ev.Fields[source]
		if !ok {
			continue
		}
		here := governance.Hop{System: f.Source.System, Entity: ev.Entity, Record: ev.RecordID, Field: source}
		t := governance.Trace{Hops: []governance.Hop{here}}
		if ft, known := trail[source]; known {
			// A value that is not JSON cannot be written anyway; the guard refuses it.
			h, _ := governance.ValueHash(v)
			switch {
			case h == ft.Hash && len(ft.Hops) > 0 && ft.Hops[len(ft.Hops)-1].Same(here):
				t.Hops = ft.Hops
			case h != ft.Hash:
				t.Replaced = true
			}
		}
		out[target] = t
	}
	return out
}

// linkFor is the loop-check link of the run's write: the pair link when a flow carries
// records back (see Flow.echoable), keyed by anchor (the source record id, or for a
// matched flow the id its cross-reference was first made from), the traces of its values,
// and when its source held them (Run.order).
func linkFor(r Run, anchor string) *governance.Link {
	l := &governance.Link{Traces: r.Pending.Traces, Read: r.trailRead}
	l.Changed, l.Received = r.order()
	if len(r.Pending.Link) > 0 {
		l.Key, l.Fields = linkKey(r.Source, r.Target, anchor), r.Pending.Link
	}
	if l.Key == "" && len(l.Traces) == 0 {
		return nil
	}
	return l
}

// withoutEchoes drops from the pair link (Flow.echoable) the fields whose value would
// return to the target along its trace. The guard breaks those by their hop chain, which
// names the loop; the reciprocal check then judges the rest of the link alone, so that a
// change made in the source is not blocked together with the echo it travels with (a
// polled record carries every field).
func (f Flow) withoutEchoes(link map[string]any, traces map[string]governance.Trace) map[string]any {
	for target, source := range f.Mapping {
		if t, ok := traces[target]; ok && t.Visits(f.Target.System, f.Target.Entity) {
			delete(link, pairName(Endpoint{f.Source.System, source}, Endpoint{f.Target.System, target}))
		}
	}
	return link
}

// order is when the run's source held its values and when the run received that change:
// the guard writes no field of the run that a later change of its source record has been
// written to already (governance's supersede.go), so a retry, an event delivered late or a
// held write released later never puts back a value the source no longer holds. Changes
// compare by the time their source stamped them (one record's changes by one clock), and
// two stamped alike by arrival: the later one received is the newer, as a source that
// keeps whole seconds stamps two quick edits alike. A change without a time (none reaches
// a run today: ParseEvent requires one and the poll skips a change without one) is ordered
// by arrival alone. A re-run is not ordered: it read its values fresh from the source, so
// they are newer than any change it could be compared with, and its time is this
// service's, which a source's stamps may trail (a mark of it could hide a newer change).
func (r Run) order() (changed, received time.Time) {
	switch {
	case strings.HasPrefix(r.EventID, RerunEventPrefix):
		return time.Time{}, time.Time{}
	case r.ChangedAt.IsZero():
		return r.CreatedAt, r.CreatedAt
	}
	return r.ChangedAt, r.CreatedAt
}
