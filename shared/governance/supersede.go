package governance

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
)

// Superseded writes. A flow write carries the values its source held at one change; it
// may be made long after that change (a retry after the target was down, a release of a
// held write, an event delivered late), when a newer change of the same source record has
// been written to the same target field already. Writing it then would put back a value
// the source no longer holds, which nobody vouched for. So a flow write says when its
// source held its values (Link.Changed, and Link.Received to order two changes stamped
// alike), every write that goes through leaves a sent mark of it on its source record's
// trail, and the guard takes out of a write each field whose newest mark is of a later
// change (ErrSuperseded when that is every field: nothing is written, and the writer ends
// it as skipped, never as failed).
//
// Why on the trail: a flow event's hot path already reads its source record's trail (the
// loop checks) and stores its ledger and trail entries in one BatchWriteItem; the mark is
// one more item of that batch and the check reads the marks from that read, so ordering
// the writes costs a flow event no DynamoDB call (issue 37's budget of five). A mark
// kept in the flows table would cost a read and a write on every event: the local
// emulator has no transactions to join them to the run's own writes.
//
// Ordering: by the change's time as the source stamped it (its own clock, so two changes
// of one record compare whatever the skew to this service's clock), then by when the
// writer received the change (two changes stamped alike, which a source that keeps whole
// seconds makes often: the one received later is the newer). A write never supersedes
// itself: its retry, after a write whose answer was lost, carries its own idempotency key.
// A write whose Changed is zero is not ordered and leaves no mark: a flow's re-run, which
// read its values fresh from the source and carries this service's time, not the source's.
//
// Limits. The check reads the marks and the write stores its own without a transaction:
// two writes of one source record in flight at the same moment are not ordered (as the
// loop check, they both pass; the target keeps the last to land). A lost mark (the ledger
// batch failed: ErrNotRecorded) orders nothing. Marks are kept for SentRetention; a held
// write released after that is not compared.

// SentRetention is how long a sent mark is kept: as long as the governance records, so a
// held write released weeks later is still compared with what was written since.
const SentRetention = RecordRetention

// SentSkew is how far the marks read for a write reach before its change's time: a mark
// is stored at this service's time, which may run behind the source's clock that stamped
// the change it carries.
const SentSkew = 5 * time.Minute

// ErrSuperseded: every field of the write was taken out because a newer change of its
// source record has been written to it already; nothing was written. Result.Superseded
// names the fields and Result.SupersededBy the newest change.
var ErrSuperseded = errors.New("governance: superseded by a newer change of the source record")

// SentMark is what a sent mark keeps of one field a write carried from its source record:
// when the source held the value, when the writer received that change, and the write's
// idempotency key.
type SentMark struct {
	Changed  time.Time `json:"c"`
	Received time.Time `json:"r"`
	Key      string    `json:"k"`
}

// after reports whether m is of a change later than (changed, received).
func (m SentMark) after(changed, received time.Time) bool {
	return m.Changed.After(changed) || m.Changed.Equal(changed) && m.Received.After(received)
}

// sentKey names a target field in a sent mark: the target system, its entity without
// case (as the manifest and the hop check compare entities) and the field.
func sentKey(system connector.System, entity, field string) string {
	return string(system) + "/" + strings.ToLower(entity) + "/" + field
}

// ordered says whether the write is ordered among its source record's writes, and
// returns that record's trail key.
func (op *writeOp) ordered() (string, bool) {
	l := op.req.Link
	if l == nil || l.Changed.IsZero() {
		return "", false
	}
	return l.sourceRecord()
}

// checkSuperseded takes out of the write the fields a newer change of its source record
// has been written to, before anything else judges it: a stale value is neither held for
// an approver nor counted by the flapping cap. The marks come from the source record's
// trail since the change's time (less SentSkew), reaching back over the loop window as
// well so that the reciprocal check reads nothing again (trailOf).
func (op *writeOp) checkSuperseded() error {
	key, ok := op.ordered()
	if !ok {
		return nil
	}
	l := op.req.Link
	since := l.Changed.Add(-SentSkew)
	if w := op.now.Add(-op.g.window); w.Before(since) {
		since = w
	}
	read, err := op.trailOf(key, since)
	if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return fmt.Errorf("%w: reading the trail of the source record: %w", ErrUnavailable, err)
	}
	var newest time.Time
	for _, name := range op.names {
		m, ok := read.newestSent(sentKey(op.req.Target, op.req.Entity, name), op.req.IdempotencyKey)
		if !ok || !m.after(l.Changed, l.Received) {
			continue
		}
		op.superseded = append(op.superseded, name)
		if m.Changed.After(newest) {
			newest = m.Changed
		}
	}
	if len(op.superseded) == 0 {
		return nil
	}
	op.supersededBy = newest
	fields := maps.Clone(op.req.Fields)
	for _, name := range op.superseded {
		delete(fields, name)
	}
	// The rest of the write is judged as if these fields had never been asked for: the
	// ownership check, a hold and the trail all see only what may still be written.
	op.req.Fields, op.names = fields, sortedKeys(fields)
	if len(fields) == 0 {
		op.names = op.superseded
		op.auditWrite(audit.ResultDenied, "superseded", map[string]any{"supersededBy": newest.UTC().Format(time.RFC3339Nano)})
		return fmt.Errorf("%w: the change of %s was written already", ErrSuperseded, newest.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// sentEntry is the sent mark a write that went through leaves on its source record's
// trail: per field written, the change it carried. None for a write that is not ordered.
func (op *writeOp) sentEntry(fields map[string]any) (LedgerEntry, bool) {
	key, ok := op.ordered()
	if !ok || len(fields) == 0 {
		return LedgerEntry{}, false
	}
	l := op.req.Link
	e := LedgerEntry{Entity: trailEntity, RecordID: key, Sent: make(map[string]SentMark, len(fields)), Fields: sortedKeys(fields)}
	for name := range fields {
		e.Sent[sentKey(op.req.Target, op.req.Entity, name)] = SentMark{Changed: l.Changed.UTC(), Received: l.Received.UTC(), Key: op.req.IdempotencyKey}
	}
	return e, true
}

// newestSent is the newest mark the read holds for a target field (sentKey), leaving out
// the marks of the write whose idempotency key is own.
func (r *TrailRead) newestSent(field, own string) (SentMark, bool) {
	var best SentMark
	found := false
	for _, e := range r.entries {
		m, ok := e.Sent[field]
		if !ok || m.Key == own {
			continue
		}
		if !found || m.after(best.Changed, best.Received) {
			best, found = m, true
		}
	}
	return best, found
}
