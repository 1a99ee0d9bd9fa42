package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// DynamoStore is the governance record store, write ledger and manifest-override store on
// the governance table. Every item sits under the tenant's partition; the sort key says
// what it is:
//
//	rej#<time>#<id>                           ownership rejection (expires, RecordRetention)
//	loop#<time>#<id>                          loop detection (expires, RecordRetention)
//	appr#<id>                                 pending ownership approval
//	ledger#<entity>#<recordId>#<time>#<id>    ledger entry (expires, LedgerRetention; folded, FoldLedgerKey;
//	                                          a trail's sent mark, SentRetention: supersede.go)
//	flap#<record>#<window>                    flapping counters of one record (expires after the window)
//	manifest                                  the tenant's manifest overrides
//
// Times are fixed-width, so each kind sorts by time within the tenant and the listings are
// key-range queries. Entity and record id are escaped ('%' and '#') so that no two records
// share a ledger prefix. Approvals are listed through the by_approval_status index
// (tenant_status "<tenant>#<status>", approval_sort "<reason>#<time>#<id>"), which only
// approval items carry. Each ledger entry is an item of its own, so concurrent writes to
// one record never overwrite each other's entries.
type DynamoStore struct {
	client *dynamodb.Client
	table  string
}

var (
	_ RecordStore   = (*DynamoStore)(nil)
	_ Ledger        = (*DynamoStore)(nil)
	_ OverrideStore = (*DynamoStore)(nil)
)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

const (
	prefixRejection = "rej#"
	prefixLoop      = "loop#"
	prefixApproval  = "appr#"
	prefixLedger    = "ledger#"
	manifestRecord  = "manifest"
)

var keyEscaper = strings.NewReplacer("%", "%25", "#", "%23")

// ledgerPrefix keys a record's entries by its entity and id without case (FoldLedgerKey).
func ledgerPrefix(entity, recordID string) string {
	entity, recordID = FoldLedgerKey(entity, recordID)
	return exactLedgerPrefix(entity, recordID)
}

// exactLedgerPrefix is the key entries were stored under before ledger keys were folded.
func exactLedgerPrefix(entity, recordID string) string {
	return prefixLedger + keyEscaper.Replace(entity) + "#" + keyEscaper.Replace(recordID) + "#"
}

func expiresAt(t time.Time, keep time.Duration) types.AttributeValue {
	return dynamostore.Num(t.Add(keep).Unix())
}

// put stores an immutable record. Its key ends in the record's time and id, so the
// condition failing means this record is stored already, by an attempt whose answer was
// lost before the SDK sent the put again: success, as audit.DynamoStore.Put says.
func (s *DynamoStore) put(ctx context.Context, it dynamostore.Item, what string) error {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		// Records are immutable: an id collision must not overwrite one.
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", what, err)
	}
	return nil
}

// PutRejection implements RecordStore.
func (s *DynamoStore) PutRejection(ctx context.Context, r OwnershipRejection) error {
	it := dynamostore.Item{
		"tenant_id":      dynamostore.Str(r.Tenant),
		"record":         dynamostore.Str(prefixRejection + dynamostore.FormatTime(r.Time) + "#" + r.ID),
		"id":             dynamostore.Str(r.ID),
		"at":             dynamostore.Str(dynamostore.FormatTime(r.Time)),
		"entity":         dynamostore.Str(r.Entity),
		"declared_owner": dynamostore.Str(string(r.DeclaredOwner)),
		"caller":         dynamostore.Str(string(r.Caller)),
		"target":         dynamostore.Str(string(r.Target)),
		"policy":         dynamostore.Str(string(r.Policy)),
		"fields":         dynamostore.StrList(r.Fields),
		"expires_at":     expiresAt(r.Time, RecordRetention),
	}
	dynamostore.PutOptional(it, "correlation_id", r.CorrelationID)
	dynamostore.PutOptional(it, "resource", r.Resource)
	return s.put(ctx, it, "ownership rejection")
}

func rejectionFrom(it dynamostore.Item) (OwnershipRejection, error) {
	r := OwnershipRejection{
		ID: dynamostore.GetString(it, "id"), Tenant: dynamostore.GetString(it, "tenant_id"), Entity: dynamostore.GetString(it, "entity"),
		DeclaredOwner: connector.System(dynamostore.GetString(it, "declared_owner")), Caller: connector.System(dynamostore.GetString(it, "caller")),
		Target: connector.System(dynamostore.GetString(it, "target")), Policy: Policy(dynamostore.GetString(it, "policy")),
		CorrelationID: dynamostore.GetString(it, "correlation_id"), Resource: dynamostore.GetString(it, "resource"),
		Fields: dynamostore.GetStrList(it, "fields"),
	}
	var err error
	if r.Time, err = dynamostore.ParseTime(dynamostore.GetString(it, "at")); err != nil {
		return r, fmt.Errorf("ownership rejection %s: at: %w", r.ID, err)
	}
	return r, nil
}

// ListRejections implements RecordStore.
func (s *DynamoStore) ListRejections(ctx context.Context, q RecordQuery) (Page[OwnershipRejection], error) {
	items, next, err := s.queryTimed(ctx, prefixRejection, q)
	if err != nil {
		return Page[OwnershipRejection]{}, err
	}
	p := Page[OwnershipRejection]{NextCursor: next}
	for _, it := range items {
		r, err := rejectionFrom(it)
		if err != nil {
			return Page[OwnershipRejection]{}, err
		}
		p.Items = append(p.Items, r)
	}
	return p, nil
}

// PutLoop implements RecordStore.
func (s *DynamoStore) PutLoop(ctx context.Context, l LoopDetection) error {
	it := dynamostore.Item{
		"tenant_id":          dynamostore.Str(l.Tenant),
		"record":             dynamostore.Str(prefixLoop + dynamostore.FormatTime(l.Time) + "#" + l.ID),
		"id":                 dynamostore.Str(l.ID),
		"at":                 dynamostore.Str(dynamostore.FormatTime(l.Time)),
		"entity":             dynamostore.Str(l.Entity),
		"caller":             dynamostore.Str(string(l.Caller)),
		"target":             dynamostore.Str(string(l.Target)),
		"breaking_condition": dynamostore.Str(l.BreakingCondition),
		"expires_at":         expiresAt(l.Time, RecordRetention),
	}
	dynamostore.PutOptional(it, "correlation_id", l.CorrelationID)
	dynamostore.PutOptional(it, "resource", l.Resource)
	return s.put(ctx, it, "loop detection")
}

func loopFrom(it dynamostore.Item) (LoopDetection, error) {
	l := LoopDetection{
		ID: dynamostore.GetString(it, "id"), Tenant: dynamostore.GetString(it, "tenant_id"), Entity: dynamostore.GetString(it, "entity"),
		Caller: connector.System(dynamostore.GetString(it, "caller")), Target: connector.System(dynamostore.GetString(it, "target")),
		BreakingCondition: dynamostore.GetString(it, "breaking_condition"), CorrelationID: dynamostore.GetString(it, "correlation_id"),
		Resource: dynamostore.GetString(it, "resource"),
	}
	var err error
	if l.Time, err = dynamostore.ParseTime(dynamostore.GetString(it, "at")); err != nil {
		return l, fmt.Errorf("loop detection %s: at: %w", l.ID, err)
	}
	return l, nil
}

// ListLoops implements RecordStore.
func (s *DynamoStore) ListLoops(ctx context.Context, q RecordQuery) (Page[LoopDetection], error) {
	items, next, err := s.queryTimed(ctx, prefixLoop, q)
	if err != nil {
		return Page[LoopDetection]{}, err
	}
	p := Page[LoopDetection]{NextCursor: next}
	for _, it := range items {
		l, err := loopFrom(it)
		if err != nil {
			return Page[LoopDetection]{}, err
		}
		p.Items = append(p.Items, l)
	}
	return p, nil
}

// queryTimed reads one page of the tenant's "<prefix><time>#<id>" items in [From, To),
// newest first. It asks for one item more than the limit to know whether a next page
// exists; the cursor is the last returned item's sort key.
func (s *DynamoStore) queryTimed(ctx context.Context, prefix string, q RecordQuery) ([]dynamostore.Item, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("tenant_id = :t AND #r BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#r": "record"},
		ExpressionAttributeValues: dynamostore.Item{
			":t":    dynamostore.Str(q.Tenant),
			":from": dynamostore.Str(prefix + dynamostore.FormatTime(q.From)),
			// "<to>" sorts before "<to>#id", so records at exactly To are excluded.
			":to": dynamostore.Str(prefix + dynamostore.FormatTime(q.To)),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
	}
	if q.Cursor != "" {
		key, err := decodeTimedCursor(prefix, q.Cursor)
		if err != nil {
			return nil, "", err
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(q.Tenant), "record": dynamostore.Str(key)}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query governance %s: %w", strings.TrimSuffix(prefix, "#"), err)
	}
	items := out.Items
	next := ""
	if len(items) > q.Limit {
		items = items[:q.Limit]
		next = dynamostore.EncodeCursor(dynamostore.GetString(items[len(items)-1], "record"))
	}
	return items, next, nil
}

// decodeTimedCursor accepts only a sort key of the listing's own kind, so a cursor of
// another listing cannot move this one to a foreign part of the partition.
func decodeTimedCursor(prefix, cursor string) (string, error) {
	key, _, ok := dynamostore.DecodeTimedCursor(cursor, prefix)
	if !ok {
		return "", ErrBadCursor
	}
	return key, nil
}

// Append implements Ledger.
func (s *DynamoStore) Append(ctx context.Context, e LedgerEntry) error {
	it, err := ledgerItem(e)
	if err != nil {
		return err
	}
	return s.put(ctx, it, "ledger entry")
}

// AppendAll implements BatchLedger: the entries and others in one BatchWriteItem (of at
// most 25 requests), its unprocessed items sent again. A batch put has no condition; an
// entry's id is 96 random bits, and putting the same entry twice (a resend) writes the
// same item.
func (s *DynamoStore) AppendAll(ctx context.Context, entries []LedgerEntry, others map[string][]types.WriteRequest) error {
	n := len(entries)
	for _, reqs := range others {
		n += len(reqs)
	}
	if n > maxBatchWrite {
		return fmt.Errorf("ledger: %d requests in one batch, at most %d", n, maxBatchWrite)
	}
	pending := make(map[string][]types.WriteRequest, len(others)+1)
	for table, reqs := range others {
		pending[table] = append(pending[table], reqs...)
	}
	for _, e := range entries {
		it, err := ledgerItem(e)
		if err != nil {
			return err
		}
		pending[s.table] = append(pending[s.table], types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	for try := 0; len(pending) > 0; try++ {
		if try == maxBatchTries {
			return fmt.Errorf("put ledger entries: %d tables' requests unprocessed after %d tries", len(pending), try)
		}
		if try > 0 {
			time.Sleep(time.Duration(try*try) * 10 * time.Millisecond)
		}
		out, err := s.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return fmt.Errorf("put ledger entries: %w", err)
		}
		pending = out.UnprocessedItems
	}
	return nil
}

// BatchWriteItem's limits: 25 requests a call; unprocessed items are sent again a few
// times, with a short growing wait, as the developer guide advises.
const (
	maxBatchWrite = 25
	maxBatchTries = 5
)

// ledgerItem is a ledger entry's item.
func ledgerItem(e LedgerEntry) (dynamostore.Item, error) {
	it := dynamostore.Item{
		"tenant_id":    dynamostore.Str(e.Tenant),
		"record":       dynamostore.Str(ledgerPrefix(e.Entity, e.RecordID) + dynamostore.FormatTime(e.Time) + "#" + e.ID),
		"id":           dynamostore.Str(e.ID),
		"at":           dynamostore.Str(dynamostore.FormatTime(e.Time)),
		"source":       dynamostore.Str(string(e.Source)),
		"target":       dynamostore.Str(string(e.Target)),
		"entity":       dynamostore.Str(e.Entity),
		"record_id":    dynamostore.Str(e.RecordID),
		"fields":       dynamostore.StrList(e.Fields),
		"payload_hash": dynamostore.Str(e.PayloadHash),
		"expires_at":   expiresAt(e.Time, LedgerRetention),
	}
	if len(e.Sent) > 0 {
		sent, err := json.Marshal(e.Sent)
		if err != nil {
			return nil, fmt.Errorf("ledger entry sent mark: %w", err)
		}
		it["sent"] = dynamostore.Str(string(sent))
		// Kept as long as a held write may wait for its release (SentRetention); the
		// loop checks' reads reach back hours only, so they do not read more for it.
		it["expires_at"] = expiresAt(e.Time, SentRetention)
	}
	dynamostore.PutOptional(it, "idempotency_key", e.IdempotencyKey)
	dynamostore.PutOptional(it, "correlation_id", e.CorrelationID)
	dynamostore.PutOptional(it, "subject", e.Subject)
	if e.Subject != "" {
		it["subject_fields"] = dynamostore.StrList(e.SubjectFields)
	}
	if len(e.Trail) > 0 {
		trail, err := json.Marshal(e.Trail)
		if err != nil {
			return nil, fmt.Errorf("ledger entry trail: %w", err)
		}
		it["trail"] = dynamostore.Str(string(trail))
	}
	return it, nil
}

// Recent implements Ledger with a consistent read, so a write just made is
// seen by the next loop check.
func (s *DynamoStore) Recent(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]LedgerEntry, error) {
	return s.recent(ctx, tenantID, ledgerPrefix(entity, recordID), since)
}

// RecentUnfolded implements unfoldedLedger: the entries stored under the exact spelling,
// as every entry was before the keys were folded. Only Wrote asks, for an entity or id
// whose spelling is not its folded one: it looks back hours, the loop check 5 minutes.
func (s *DynamoStore) RecentUnfolded(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]LedgerEntry, error) {
	return s.recent(ctx, tenantID, exactLedgerPrefix(entity, recordID), since)
}

func (s *DynamoStore) recent(ctx context.Context, tenantID, prefix string, since time.Time) ([]LedgerEntry, error) {
	in := &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("tenant_id = :t AND #r BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#r": "record"},
		ExpressionAttributeValues: dynamostore.Item{
			":t":    dynamostore.Str(tenantID),
			":from": dynamostore.Str(prefix + dynamostore.FormatTime(since)),
			// '~' sorts after every character of a formatted time.
			":to": dynamostore.Str(prefix + "~"),
		},
		ConsistentRead: aws.Bool(true),
	}
	var out []LedgerEntry
	for {
		page, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query ledger: %w", err)
		}
		for _, it := range page.Items {
			e := LedgerEntry{
				ID: dynamostore.GetString(it, "id"), Tenant: dynamostore.GetString(it, "tenant_id"),
				Source: connector.System(dynamostore.GetString(it, "source")), Target: connector.System(dynamostore.GetString(it, "target")),
				Entity: dynamostore.GetString(it, "entity"), RecordID: dynamostore.GetString(it, "record_id"), Fields: dynamostore.GetStrList(it, "fields"),
				PayloadHash: dynamostore.GetString(it, "payload_hash"), IdempotencyKey: dynamostore.GetString(it, "idempotency_key"),
				CorrelationID: dynamostore.GetString(it, "correlation_id"), Subject: dynamostore.GetString(it, "subject"),
				SubjectFields: dynamostore.GetStrList(it, "subject_fields"),
			}
			if e.Time, err = dynamostore.ParseTime(dynamostore.GetString(it, "at")); err != nil {
				return nil, fmt.Errorf("ledger entry %s: at: %w", e.ID, err)
			}
			if raw := dynamostore.GetString(it, "trail"); raw != "" {
				if err := json.Unmarshal([]byte(raw), &e.Trail); err != nil {
					return nil, fmt.Errorf("ledger entry %s: trail: %w", e.ID, err)
				}
			}
			if raw := dynamostore.GetString(it, "sent"); raw != "" {
				if err := json.Unmarshal([]byte(raw), &e.Sent); err != nil {
					return nil, fmt.Errorf("ledger entry %s: sent: %w", e.ID, err)
				}
			}
			out = append(out, e)
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// storedEntry is a manifest override as stored.
type storedEntry struct {
	Entity string `json:"entity"`
	Field  string `json:"field,omitempty"`
	Owner  string `json:"owner"`
	Policy string `json:"policy"`
}

// Overrides implements OverrideStore.
func (s *DynamoStore) Overrides(ctx context.Context, tenantID string) ([]Entry, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		Key: dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str(manifestRecord)},
	})
	if err != nil {
		return nil, fmt.Errorf("get manifest overrides of %s: %w", tenantID, err)
	}
	raw := dynamostore.GetString(out.Item, "entries")
	if raw == "" {
		return nil, nil
	}
	var stored []storedEntry
	if err := json.Unmarshal([]byte(raw), &stored); err != nil {
		return nil, fmt.Errorf("manifest overrides of %s: %w", tenantID, err)
	}
	entries := make([]Entry, 0, len(stored))
	for _, e := range stored {
		entries = append(entries, Entry{Entity: e.Entity, Field: e.Field,
			Owner: connector.System(e.Owner), Policy: Policy(e.Policy)})
	}
	return entries, nil
}

// PutOverrides implements OverrideStore: one item per tenant, replaced whole.
func (s *DynamoStore) PutOverrides(ctx context.Context, tenantID string, entries []Entry) error {
	stored := make([]storedEntry, 0, len(entries))
	for _, e := range entries {
		stored = append(stored, storedEntry{Entity: e.Entity, Field: e.Field, Owner: string(e.Owner), Policy: string(e.Policy)})
	}
	raw, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item:      dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str(manifestRecord), "entries": dynamostore.Str(string(raw))},
	})
	if err != nil {
		return fmt.Errorf("put manifest overrides of %s: %w", tenantID, err)
	}
	return nil
}
