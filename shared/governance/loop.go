package governance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/connector"
)

// DefaultLoopWindow is how far back a write looks for the reciprocal write that would make
// it part of a loop.
const DefaultLoopWindow = 5 * time.Minute

// LedgerRetention is how long ledger entries are kept. It covers the loop window and the
// sync-error lease sweep (which asks the ledger whether an approve that stopped had
// written, within an hour of its lease), and leaves room to investigate a loop after the
// fact.
const LedgerRetention = 24 * time.Hour

// LedgerEntry is one write the guard made.
type LedgerEntry struct {
	ID       string
	Time     time.Time
	Tenant   string
	Source   connector.System // the origin tag the write carried
	Target   connector.System
	Entity   string
	RecordID string
	// Fields are the names of the fields written, sorted.
	Fields []string
	// PayloadHash is PayloadHash of the fields written.
	PayloadHash    string
	IdempotencyKey string
	CorrelationID  string
	// Trail is set on trail entries only (hops.go): per field, the value's hash and how
	// it got there.
	Trail map[string]FieldTrail
	// Subject is set on an entry of a record's trail that stands for a write to the record
	// (trail_read.go): the write's own ledger subject (subjectKey), SubjectFields the
	// field names its own entry has and PayloadHash its hash, so that the reciprocal check
	// of the return leg finds it in the trail it reads anyway.
	Subject       string
	SubjectFields []string
	// Sent is set on a sent mark only (supersede.go), an entry of a source record's
	// trail: per target field a write carried from the record (sentKey), the change it
	// carried. Fields are then the target fields.
	Sent map[string]SentMark
}

// Ledger records the guard's writes for loop detection. Each entry is stored on its own,
// keyed tenant first, so concurrent writes to one record never lose each other's entries.
type Ledger interface {
	// Append stores e. An entry already stored (the same tenant, record, time and id: the
	// SDK sent the put again because its first answer was lost) is not an error and is
	// stored once: the write it records happened.
	Append(ctx context.Context, e LedgerEntry) error
	// Recent returns the tenant's entries for one record with Time at or after since,
	// oldest first.
	// Entity and record id compare as FoldLedgerKey folds them.
	Recent(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]LedgerEntry, error)
}

// FoldLedgerKey is the entity and record id a ledger keys a record's entries by: both
// lower-cased, as the manifest and the hop check compare entities, so that the return leg
// of a loop spelled "Vendor"/"v-1" finds the write to "vendor"/"V-1". Record ids fold for
// every system: a false match needs two records whose ids differ only in case (a
// Salesforce 15-character id) written both ways with the same fields within the loop
// window, and is a visible loop detection; a missed loop repeats. Trail and link subjects
// ('~' entities) are built normalised by the guard (trailKey) and stay exact: a trail's
// record id keeps its case where the system's ids have one.
func FoldLedgerKey(entity, recordID string) (string, string) {
	if strings.HasPrefix(entity, "~") {
		return entity, recordID
	}
	return strings.ToLower(entity), strings.ToLower(recordID)
}

// unfoldedLedger is a Ledger that may still hold entries under the exact spelling of
// their entity and record id: a DynamoDB ledger written before keys were folded, for a
// day (LedgerRetention).
type unfoldedLedger interface {
	RecentUnfolded(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]LedgerEntry, error)
}

// BatchLedger is a Ledger that appends several entries in one call: a write's entry and
// its trail entries are stored together, and with them other tables' put requests by
// table (the write's audit records, audit.Batched), in one BatchWriteItem (issue 37 §3:
// a flow event's calls).
type BatchLedger interface {
	AppendAll(ctx context.Context, entries []LedgerEntry, others map[string][]types.WriteRequest) error
}

// Wrote reports whether the ledger holds a write to the tenant's record, at or after
// since, that carried one of keys: whether a guarded write reached its target. Sweeps ask
// it before undoing an approve whose marker is missing, since the guard appends the entry
// right after the write, before the caller could record it.
//
// Callers name the record as they wrote it, not the system it is in, so Wrote reads each
// key the entry can be under, the usual one first: a miss costs a query or two, off the
// write's path.
func Wrote(ctx context.Context, l Ledger, tenantID, entity, recordID string, since time.Time, keys ...string) (bool, error) {
	if len(keys) == 0 {
		return false, nil
	}
	// A write to any system but Mailchimp is under the id as written, folded.
	found, err := wroteUnder(ctx, l.Recent, tenantID, entity, recordID, since, keys)
	// A write to a Mailchimp member named by its address is under the subscriber hash
	// (loopSubject); so, until they expire, are writes from Mailchimp to another system
	// stored while both legs were hashed.
	if hash := recordKey(connector.SystemMarketing, recordID); err == nil && !found && hash != recordID {
		found, err = wroteUnder(ctx, l.Recent, tenantID, entity, hash, since, keys)
	}
	// A write made before the keys were folded is under its exact spelling; a sweep looks
	// back further than the loop check, so it reads that too (only for a spelling that
	// folds to another: otherwise the first read was this one).
	u, unfolded := l.(unfoldedLedger)
	if fe, fr := FoldLedgerKey(entity, recordID); err == nil && !found && unfolded && (fe != entity || fr != recordID) {
		found, err = wroteUnder(ctx, u.RecentUnfolded, tenantID, entity, recordID, since, keys)
	}
	if err != nil {
		return false, fmt.Errorf("write ledger of %s/%s: %w", entity, recordID, err)
	}
	return found, nil
}

func wroteUnder(ctx context.Context, recent func(context.Context, string, string, string, time.Time) ([]LedgerEntry, error),
	tenantID, entity, recordID string, since time.Time, keys []string) (bool, error) {
	entries, err := recent(ctx, tenantID, entity, recordID, since)
	return err == nil && hasKey(entries, keys), err
}

func hasKey(entries []LedgerEntry, keys []string) bool {
	for _, e := range entries {
		if slices.Contains(keys, e.IdempotencyKey) {
			return true
		}
	}
	return false
}

// PayloadHash is the hex SHA-256 of the canonical JSON of fields: what json.Marshal writes
// (object keys sorted at every level, no insignificant space). Two writes of the
// same values hash alike whatever order their fields were built in.
func PayloadHash(fields map[string]any) (string, error) {
	b, err := canonicalJSON(nil, fields, nil)
	if err != nil {
		return "", err
	}
	return hashJSON(b), nil
}

func hashJSON(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// reciprocal looks in entries for the write that makes this one (source→target of names
// with hash) the return leg of a loop: target→source of the same record within the
// window, with the same payload hash or exactly the same field names. A same-hash match
// is preferred, then the most recent one. The returned text is the breaking condition.
func reciprocal(entries []LedgerEntry, source, target connector.System, hash string, names []string, since time.Time) (string, bool) {
	if source == target {
		return "", false
	}
	var sameFields *LedgerEntry
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Source != target || e.Target != source || e.Time.Before(since) {
			continue
		}
		if e.PayloadHash == hash {
			return fmt.Sprintf("same payload hash as %s→%s write at %s", e.Source, e.Target,
				e.Time.UTC().Format(time.RFC3339)), true
		}
		if sameFields == nil && sameNames(e.Fields, names) {
			sameFields = e
		}
	}
	if sameFields != nil {
		return fmt.Sprintf("ping-pong of fields %v with %s→%s write at %s", names, sameFields.Source,
			sameFields.Target, sameFields.Time.UTC().Format(time.RFC3339)), true
	}
	return "", false
}

// sameNames compares field-name sets; names is sorted, stored ones are sorted by the guard
// but a store is not trusted to keep the order.
func sameNames(stored, names []string) bool {
	if len(stored) != len(names) {
		return false
	}
	if !slices.IsSorted(stored) {
		stored = slices.Sorted(slices.Values(stored))
	}
	return slices.Equal(stored, names)
}
