package governance

import (
	"context"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// The reciprocal check of a flow write reads the trail its executor has read already
// (issue 37 §3: a flow event's DynamoDB calls). The return leg of a loop wrote the record
// a flow write reads its values from, so a flow write between two systems marks its
// target record's trail entry as standing for it (Subject: the ledger subject its own
// entry is stored under, with that entry's field names and hash), and a flow write (one
// with traces) finds the writes that would make it a return leg among the entries of its
// source record's trail: the read its executor made (Link.Read), or one made now. A
// linked write's own entry is that trail entry (only flow writes carry links); a write
// without a link keeps its own entry under the record as well, for writes without traces.
//
// What is compared is unchanged for a link (its key is the subject). Without one the
// subject is the record's entity and id as before, and only writes that reached the
// source record count: a write to another entity of the source system that has the
// target entity's name and the same id is another record, not a return leg. Writes
// without traces (an operator's fix, a finance approval) leave no trail entry, so a flow
// write does not compare them: of those only the fix of a flow's sync error is written
// between two systems, and a return leg compared it before only when the pair's two
// entities have one name and no flow carries the fields back (no link). Trail entries
// stored before this change name no subject: for the loop window after a deploy (5
// minutes) the hop chains and the flapping cap stand alone.

// TrailRead is one read of a record's trail entries since a time: what Trails.Read
// returns, and what a flow passes on in Link.Read.
type TrailRead struct {
	tenant, key string
	since       time.Time
	entries     []LedgerEntry
}

// Read reads the record's trail entries since since, oldest first.
func (t Trails) Read(ctx context.Context, tenant string, system connector.System, entity, record string, since time.Time) (*TrailRead, error) {
	key := trailKey(system, entity, record)
	entries, err := t.Ledger.Recent(ctx, tenant, trailEntity, key, since)
	if err != nil {
		return nil, err
	}
	return &TrailRead{tenant: tenant, key: key, since: since, entries: entries}, nil
}

// Fields is the read's trail: per field, its newest entry.
func (r *TrailRead) Fields() map[string]FieldTrail {
	out := map[string]FieldTrail{}
	// Oldest first: a later entry replaces an earlier one.
	for _, e := range r.entries {
		for field, ft := range e.Trail {
			ft.Time = e.Time
			out[field] = ft
		}
	}
	return out
}

// covers says whether the read holds every trail entry of the tenant's record key since
// since.
func (r *TrailRead) covers(tenant, key string, since time.Time) bool {
	return r != nil && r.tenant == tenant && r.key == key && !r.since.After(since)
}

// subject are the writes of subject the read holds, as the reciprocal check compares
// them: their own entries' field names and hash.
func (r *TrailRead) subject(key string) []LedgerEntry {
	var out []LedgerEntry
	for _, e := range r.entries {
		// Without case, as the ledger keys records (FoldLedgerKey): subjects are escaped
		// entity and id, and the escapes are digits.
		if e.Subject == key || !strings.HasPrefix(key, linkEntity) && strings.EqualFold(e.Subject, key) {
			e.Fields = e.SubjectFields
			out = append(out, e)
		}
	}
	return out
}

// subjectKey is a ledger subject (loopSubject) as trail entries name it; escaped as the
// ledger's keys are, so no two subjects share one.
func subjectKey(entity, record string) string {
	return keyEscaper.Replace(entity) + "#" + keyEscaper.Replace(record)
}

// sourceRecord is the trail key of the record a write with traces reads its values from:
// the last hop of its traces (each ends there); false without traces.
func (l *Link) sourceRecord() (string, bool) {
	if l == nil {
		return "", false
	}
	for _, name := range sortedKeys(l.Traces) {
		if hops := l.Traces[name].Hops; len(hops) > 0 {
			h := hops[len(hops)-1]
			return trailKey(h.System, h.Entity, h.Record), true
		}
	}
	return "", false
}

// reciprocalEntries are the ledger entries the reciprocal check compares for the write's
// subject since since: for a write with traces, those standing for writes on its source
// record's trail (trailOf); otherwise the subject's own entries.
func (op *writeOp) reciprocalEntries(entity, record string, since time.Time) ([]LedgerEntry, error) {
	key, traced := op.req.Link.sourceRecord()
	if !traced {
		return op.g.ledger.Recent(op.ctx, op.tenant, entity, record, since)
	}
	read, err := op.trailOf(key, since)
	if err != nil {
		return nil, err
	}
	return read.subject(subjectKey(entity, record)), nil
}

// trailOf is the trail of key since since: Link.Read, or the read this write made already
// (the superseded check's, supersede.go), when one covers it; else one read now, kept for
// the write's later checks.
func (op *writeOp) trailOf(key string, since time.Time) (*TrailRead, error) {
	if op.req.Link != nil && op.req.Link.Read.covers(op.tenant, key, since) {
		return op.req.Link.Read, nil
	}
	if op.trail.covers(op.tenant, key, since) {
		return op.trail, nil
	}
	entries, err := op.g.ledger.Recent(op.ctx, op.tenant, trailEntity, key, since)
	if err != nil {
		return nil, err
	}
	op.trail = &TrailRead{tenant: op.tenant, key: key, since: since, entries: entries}
	return op.trail, nil
}

// ledgerEntries are what a write that went through stores in the ledger: its own entry
// and its trail entries, the target's standing for the write (see above); a linked
// write's own entry is then that one.
func (op *writeOp) ledgerEntries(entry LedgerEntry, fields map[string]any, out connector.WriteResult) ([]LedgerEntry, error) {
	record := op.writtenID(out)
	trails, err := op.trailEntries(fields, record)
	if err != nil {
		return []LedgerEntry{entry}, err
	}
	if op.req.Source == op.req.Target || record == "" || len(trails) == 0 ||
		trails[0].RecordID != trailKey(op.req.Target, op.req.Entity, record) {
		return append([]LedgerEntry{entry}, trails...), nil
	}
	t := &trails[0]
	t.Subject, t.SubjectFields, t.PayloadHash = subjectKey(entry.Entity, entry.RecordID), entry.Fields, entry.PayloadHash
	if entry.Entity == linkEntity {
		return trails, nil
	}
	return append([]LedgerEntry{entry}, trails...), nil
}
