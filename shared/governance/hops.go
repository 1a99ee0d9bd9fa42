package governance

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Hop chains: the loop check that follows a value through any number of flows.
//
// The reciprocal check (loop.go) sees a write's direct return leg. A value that goes
// round three systems (hosterp → crm → marketing → hosterp), possibly landing in another
// field on the way back, or between two entities of one system, has no direct return
// leg. So a flow write carries, per field, the Trace of its value: where it started and
// every field a flow wrote it to since. The guard breaks a field whose trace already
// visited the write's target endpoint (system and entity): the value would return to a
// place it came from. Written fields leave their trace, extended by the target, on the
// target record's trail (ledger entries under trailEntity), where the executor finds it
// when the target system reports the change the write made (Trails.Trail).

// MaxHops bounds a trace: a value that has passed this many fields without returning is
// treated as looping, which also bounds the size of a trail entry.
const MaxHops = 20

// Hop is one place a value has been: a field of one record of a system's entity.
type Hop struct {
	System connector.System `json:"system"`
	Entity string           `json:"entity"`
	Record string           `json:"record"`
	Field  string           `json:"field"`
}

func (h Hop) String() string {
	return string(h.System) + "/" + h.Entity + "/" + h.Record + "." + h.Field
}

// Trace is where a value a write carries came from.
type Trace struct {
	// Hops are the origin first, then each field a flow wrote the value to; the last is
	// the field the write reads it from.
	Hops []Hop `json:"hops"`
	// Replaced says that the origin field had held a value a flow wrote there and this
	// value is a local change of it. The trail then records the origin's value as local,
	// so that an edit back to the flow's value is not taken for that write's echo.
	Replaced bool `json:"replaced,omitempty"`
}

// FieldTrail is what a record's trail knows of one field: the hash of the value last
// written or observed there (ValueHash) and, for a value a flow wrote, its hops ending in
// this field. No hops: the record's own system set the value.
type FieldTrail struct {
	Hash string    `json:"hash"`
	Hops []Hop     `json:"hops,omitempty"`
	Time time.Time `json:"-"`
}

// ValueHash is the hash trails compare a field's value by: the PayloadHash of the value
// under a fixed name, so equal JSON values hash alike however they were built.
func ValueHash(v any) (string, error) { return PayloadHash(map[string]any{"v": v}) }

// trailEntity is the ledger entity of trail entries; like linkEntity it starts with a
// character no system's entity does.
const trailEntity = "~trail"

// trailKey is the ledger record of one record's trail: the system, the entity (without
// case, as the hop check compares it, and escaped, so that a '/' in it cannot shift the
// parts) and the record id.
func trailKey(system connector.System, entity, record string) string {
	return string(system) + "/" + url.PathEscape(strings.ToLower(entity)) + "/" + recordKey(system, record)
}

// recordKey is a record id as trails compare it. A Mailchimp member has two: the
// subscriber hash a create or upsert answers (writtenID) and the address its change
// listing names it by (connector's Mailchimp changes list members by email_address);
// both are one member under connector.SubscriberHash, which keeps a hash as it is.
func recordKey(system connector.System, record string) string {
	if system == connector.SystemMarketing && record != "" {
		return connector.SubscriberHash(record)
	}
	return record
}

// Same reports whether h and o are the same field of the same record; entities compare
// without case, records as recordKey does.
func (h Hop) Same(o Hop) bool {
	return h.System == o.System && strings.EqualFold(h.Entity, o.Entity) &&
		recordKey(h.System, h.Record) == recordKey(o.System, o.Record) && h.Field == o.Field
}

// Trails reads records' trails from the guard's ledger.
type Trails struct{ Ledger Ledger }

// Trail returns, per field, the newest trail of the record since since.
func (t Trails) Trail(ctx context.Context, tenant string, system connector.System, entity, record string, since time.Time) (map[string]FieldTrail, error) {
	r, err := t.Read(ctx, tenant, system, entity, record, since)
	if err != nil {
		return nil, err
	}
	return r.Fields(), nil
}

// Visits reports whether the trace visited endpoint (system, entity): a write of its
// value there would return it to where it came from. Entities compare as the manifest
// compares them, without case.
func (t Trace) Visits(system connector.System, entity string) bool {
	for _, h := range t.Hops {
		if h.System == system && strings.EqualFold(h.Entity, entity) {
			return true
		}
	}
	return false
}

func (t Trace) valid() bool {
	if len(t.Hops) == 0 {
		return false
	}
	for _, h := range t.Hops {
		if !h.System.Known() || h.Entity == "" || h.Record == "" || h.Field == "" {
			return false
		}
	}
	return true
}

// checkHops takes out of fields those whose trace returns to the write's target, or is
// too long, records one loop detection naming their hop chains, and returns the rest. A
// write left with no field is refused with ErrLoopDetected.
func (op *writeOp) checkHops(fields map[string]any) (map[string]any, error) {
	l := op.req.Link
	if l == nil || len(l.Traces) == 0 {
		return fields, nil
	}
	var looped, chains []string
	for _, name := range op.names {
		if chain, ok := op.hopLoop(name); ok {
			looped = append(looped, name)
			chains = append(chains, chain)
		}
	}
	if len(looped) == 0 {
		return fields, nil
	}
	return op.breakFields(fields, looped, "returns to "+string(op.req.Target)+"/"+op.req.Entity+": "+strings.Join(chains, "; "))
}

// hopLoop reports whether field's trace returns to the write's target or has reached
// MaxHops, with its chain: the hop test Write and Evaluate share.
func (op *writeOp) hopLoop(field string) (chain string, loop bool) {
	l := op.req.Link
	if l == nil {
		return "", false
	}
	t, ok := l.Traces[field]
	if !ok {
		return "", false
	}
	back := t.Visits(op.req.Target, op.req.Entity)
	if !back && len(t.Hops) < MaxHops {
		return "", false
	}
	return op.chainText(field, t, back), true
}

// chainText is one field's hop chain ending in the write that would close it.
func (op *writeOp) chainText(field string, t Trace, back bool) string {
	parts := make([]string, 0, len(t.Hops)+1)
	for _, h := range t.Hops {
		parts = append(parts, h.String())
	}
	parts = append(parts, Hop{op.req.Target, op.req.Entity, op.req.RecordID, field}.String())
	s := strings.Join(parts, " → ")
	if !back {
		s += fmt.Sprintf(" (more than %d hops)", MaxHops-1)
	}
	return s
}

// breakFields records a loop detection for fields of the write and takes them out; with
// nothing left the write is refused.
func (op *writeOp) breakFields(fields map[string]any, broken []string, cond string) (map[string]any, error) {
	cond = op.recordLoop(cond, broken)
	op.looped = append(op.looped, broken...)
	rest := make(map[string]any, len(fields))
	for k, v := range fields {
		if !containsString(broken, k) {
			rest[k] = v
		}
	}
	op.names = sortedKeys(rest)
	if len(rest) == 0 {
		op.auditWrite(audit.ResultDenied, "loop_detected", nil)
		return nil, fmt.Errorf("%w: %s", ErrLoopDetected, cond)
	}
	return rest, nil
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// trailEntries are what a flow write leaves on the trails: on the target record, each
// written field's value hash and trace extended by the target; on the source record, the
// local values that replaced a flow's (Trace.Replaced), and the write's sent mark when it
// is ordered (supersede.go). Writes without traces leave none.
// record is the id the target holds the written record under (writtenID): the id its
// change reports name, where the executor looks for the trail.
func (op *writeOp) trailEntries(fields map[string]any, record string) ([]LedgerEntry, error) {
	l := op.req.Link
	if l == nil || len(l.Traces) == 0 {
		return nil, nil
	}
	target := LedgerEntry{Trail: map[string]FieldTrail{}}
	var local LedgerEntry
	for name, v := range fields {
		t, ok := l.Traces[name]
		if !ok {
			continue
		}
		h, err := ValueHash(v)
		if err != nil {
			return nil, err
		}
		if record != "" {
			hops := append(append(make([]Hop, 0, len(t.Hops)+1), t.Hops...), Hop{op.req.Target, op.req.Entity, record, name})
			target.Trail[name] = FieldTrail{Hash: h, Hops: hops}
		}
		if o := t.Hops[0]; t.Replaced && len(t.Hops) == 1 {
			if local.Trail == nil {
				local = LedgerEntry{Entity: trailEntity, RecordID: trailKey(o.System, o.Entity, o.Record), Trail: map[string]FieldTrail{}}
			}
			local.Trail[o.Field] = FieldTrail{Hash: h}
		}
	}
	var out []LedgerEntry
	if len(target.Trail) > 0 {
		target.Entity, target.RecordID = trailEntity, trailKey(op.req.Target, op.req.Entity, record)
		out = append(out, target)
	}
	if local.Trail != nil {
		out = append(out, local)
	}
	for i := range out {
		out[i].Fields = sortedKeys(out[i].Trail)
	}
	if sent, ok := op.sentEntry(fields); ok {
		out = append(out, sent)
	}
	for i := range out {
		e := &out[i]
		e.ID, e.Time, e.Tenant, e.Source, e.Target = op.g.newID(), op.now, op.tenant, op.req.Source, op.req.Target
		e.IdempotencyKey, e.CorrelationID = op.req.IdempotencyKey, op.corr
	}
	return out, nil
}

// writtenID is the id of the record a write went to, as the target returned it. An update
// names its record; a create learns its id only from the answer, and an upsert is
// addressed by an external id (RecordID is the key's value), not by the id the target
// keeps it under and reports its changes with. A trail under the key or an empty id
// would never be found, and a value that went round through such a write would start
// afresh at its next hop: the loop would pass once. Empty when the answer named no id.
func (op *writeOp) writtenID(out connector.WriteResult) string {
	if op.req.Create || op.req.UpsertKey != "" {
		return out.Record.ID
	}
	return op.req.RecordID
}

// appendLedger stores a write's ledger entries (ledgerEntries): in one call when the
// ledger batches, with others (other tables' put requests, the write's audit records),
// else one by one (others is then empty). It returns what could not be stored, each logged.
func (op *writeOp) appendLedger(entry LedgerEntry, fields map[string]any, out connector.WriteResult, others map[string][]types.WriteRequest) []error {
	// Without its trail (it cannot be built) the write's own entry is still stored.
	entries, terr := op.ledgerEntries(entry, fields, out)
	var errs []error
	if bl, ok := op.g.ledger.(BatchLedger); ok {
		if aerr := bl.AppendAll(op.ctx, entries, others); aerr != nil {
			httpapi.Logger(op.ctx).Error("write ledger and trail entries not stored", "resource", op.resource, "error", aerr)
			return []error{fmt.Errorf("ledger: %w", aerr)}
		}
	} else {
		for i, e := range entries {
			err := op.g.ledger.Append(op.ctx, e)
			if err == nil {
				continue
			}
			// The first entry is the write's own (alone, or folded into its trail entry).
			if i == 0 && (e.Trail == nil || e.Subject != "") {
				httpapi.Logger(op.ctx).Error("write ledger entry not stored", "resource", op.resource, "error", err)
				errs = append(errs, fmt.Errorf("ledger: %w", err))
				continue
			}
			httpapi.Logger(op.ctx).Error("trail entry not stored", "resource", op.resource, "error", err)
			errs = append(errs, fmt.Errorf("trail: %w", err))
			break
		}
	}
	if terr != nil {
		httpapi.Logger(op.ctx).Error("trail entry not stored", "resource", op.resource, "error", terr)
		errs = append(errs, fmt.Errorf("trail: %w", terr))
	}
	return errs
}
