package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// Governance is the governance record store, write ledger and manifest-override store on
// the governance table. Every item sits under the tenant's partition; the sort key says
// what it is:
//
//	rej#<time>#<id>                           ownership rejection (expires, RecordRetention)
//	loop#<time>#<id>                          loop detection (expires, RecordRetention)
//	appr#<id>                                 pending ownership approval
//	ledger#<entity>#<recordId>#<time>#<id>    ledger entry (expires, LedgerRetention)
//	flap#<record>#<window>                    flapping counters of one record (expires after the window)
//	manifest                                  the tenant's manifest overrides
//
// Times are fixed-width, so each kind sorts by time within the tenant and the listings are
// key-range queries. Entity and record id are escaped ('%' and '#') so that no two records
// share a ledger prefix. Approvals are listed through the by_approval_status index
// (tenant_status "<tenant>#<status>", approval_sort "<reason>#<time>#<id>"), which only
// approval items carry. Each ledger entry is an item of its own, so concurrent writes to
// one record never overwrite each other's entries.
type Governance struct {
	client *dynamodb.Client
	table  string
}

var (
	_ governance.RecordStore   = (*Governance)(nil)
	_ governance.Ledger        = (*Governance)(nil)
	_ governance.OverrideStore = (*Governance)(nil)
)

// NewGovernance returns the store for the physical table name.
func NewGovernance(client *dynamodb.Client, table string) *Governance {
	return &Governance{client: client, table: table}
}

const (
	prefixRejection = "rej#"
	prefixLoop      = "loop#"
	prefixApproval  = "appr#"
	prefixLedger    = "ledger#"
	manifestRecord  = "manifest"
)

var keyEscaper = strings.NewReplacer("%", "%25", "#", "%23")

func ledgerPrefix(entity, recordID string) string {
	return prefixLedger + keyEscaper.Replace(entity) + "#" + keyEscaper.Replace(recordID) + "#"
}

func strList(ss []string) types.AttributeValue {
	l := make([]types.AttributeValue, len(ss))
	for i, s := range ss {
		l[i] = Str(s)
	}
	return &types.AttributeValueMemberL{Value: l}
}

func getStrList(it Item, name string) []string {
	l, ok := it[name].(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l.Value))
	for _, v := range l.Value {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			out = append(out, s.Value)
		}
	}
	return out
}

func expiresAt(t time.Time, keep time.Duration) types.AttributeValue {
	return Num(t.Add(keep).Unix())
}

func (s *Governance) put(ctx context.Context, it Item, what string) error {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		// Records are immutable: an id collision must not overwrite one.
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if err != nil {
		return fmt.Errorf("put %s: %w", what, err)
	}
	return nil
}

// PutRejection implements governance.RecordStore.
func (s *Governance) PutRejection(ctx context.Context, r governance.OwnershipRejection) error {
	it := Item{
		"tenant_id":      Str(r.Tenant),
		"record":         Str(prefixRejection + FormatTime(r.Time) + "#" + r.ID),
		"id":             Str(r.ID),
		"at":             Str(FormatTime(r.Time)),
		"entity":         Str(r.Entity),
		"declared_owner": Str(string(r.DeclaredOwner)),
		"caller":         Str(string(r.Caller)),
		"target":         Str(string(r.Target)),
		"policy":         Str(string(r.Policy)),
		"fields":         strList(r.Fields),
		"expires_at":     expiresAt(r.Time, governance.RecordRetention),
	}
	PutOptional(it, "correlation_id", r.CorrelationID)
	PutOptional(it, "resource", r.Resource)
	return s.put(ctx, it, "ownership rejection")
}

func rejectionFrom(it Item) (governance.OwnershipRejection, error) {
	r := governance.OwnershipRejection{
		ID: GetString(it, "id"), Tenant: GetString(it, "tenant_id"), Entity: GetString(it, "entity"),
		DeclaredOwner: connector.System(GetString(it, "declared_owner")), Caller: connector.System(GetString(it, "caller")),
		Target: connector.System(GetString(it, "target")), Policy: governance.Policy(GetString(it, "policy")),
		CorrelationID: GetString(it, "correlation_id"), Resource: GetString(it, "resource"),
		Fields: getStrList(it, "fields"),
	}
	var err error
	if r.Time, err = ParseTime(GetString(it, "at")); err != nil {
		return r, fmt.Errorf("ownership rejection %s: at: %w", r.ID, err)
	}
	return r, nil
}

// ListRejections implements governance.RecordStore.
func (s *Governance) ListRejections(ctx context.Context, q governance.RecordQuery) (governance.Page[governance.OwnershipRejection], error) {
	items, next, err := s.queryTimed(ctx, prefixRejection, q)
	if err != nil {
		return governance.Page[governance.OwnershipRejection]{}, err
	}
	p := governance.Page[governance.OwnershipRejection]{NextCursor: next}
	for _, it := range items {
		r, err := rejectionFrom(it)
		if err != nil {
			return governance.Page[governance.OwnershipRejection]{}, err
		}
		p.Items = append(p.Items, r)
	}
	return p, nil
}

// PutLoop implements governance.RecordStore.
func (s *Governance) PutLoop(ctx context.Context, l governance.LoopDetection) error {
	it := Item{
		"tenant_id":          Str(l.Tenant),
		"record":             Str(prefixLoop + FormatTime(l.Time) + "#" + l.ID),
		"id":                 Str(l.ID),
		"at":                 Str(FormatTime(l.Time)),
		"entity":             Str(l.Entity),
		"caller":             Str(string(l.Caller)),
		"target":             Str(string(l.Target)),
		"breaking_condition": Str(l.BreakingCondition),
		"expires_at":         expiresAt(l.Time, governance.RecordRetention),
	}
	PutOptional(it, "correlation_id", l.CorrelationID)
	PutOptional(it, "resource", l.Resource)
	return s.put(ctx, it, "loop detection")
}

func loopFrom(it Item) (governance.LoopDetection, error) {
	l := governance.LoopDetection{
		ID: GetString(it, "id"), Tenant: GetString(it, "tenant_id"), Entity: GetString(it, "entity"),
		Caller: connector.System(GetString(it, "caller")), Target: connector.System(GetString(it, "target")),
		BreakingCondition: GetString(it, "breaking_condition"), CorrelationID: GetString(it, "correlation_id"),
		Resource: GetString(it, "resource"),
	}
	var err error
	if l.Time, err = ParseTime(GetString(it, "at")); err != nil {
		return l, fmt.Errorf("loop detection %s: at: %w", l.ID, err)
	}
	return l, nil
}

// ListLoops implements governance.RecordStore.
func (s *Governance) ListLoops(ctx context.Context, q governance.RecordQuery) (governance.Page[governance.LoopDetection], error) {
	items, next, err := s.queryTimed(ctx, prefixLoop, q)
	if err != nil {
		return governance.Page[governance.LoopDetection]{}, err
	}
	p := governance.Page[governance.LoopDetection]{NextCursor: next}
	for _, it := range items {
		l, err := loopFrom(it)
		if err != nil {
			return governance.Page[governance.LoopDetection]{}, err
		}
		p.Items = append(p.Items, l)
	}
	return p, nil
}

// queryTimed reads one page of the tenant's "<prefix><time>#<id>" items in [From, To),
// newest first. It asks for one item more than the limit to know whether a next page
// exists; the cursor is the last returned item's sort key.
func (s *Governance) queryTimed(ctx context.Context, prefix string, q governance.RecordQuery) ([]Item, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("tenant_id = :t AND #r BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#r": "record"},
		ExpressionAttributeValues: Item{
			":t":    Str(q.Tenant),
			":from": Str(prefix + FormatTime(q.From)),
			// "<to>" sorts before "<to>#id", so records at exactly To are excluded.
			":to": Str(prefix + FormatTime(q.To)),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
	}
	if q.Cursor != "" {
		key, err := decodeTimedCursor(prefix, q.Cursor)
		if err != nil {
			return nil, "", err
		}
		in.ExclusiveStartKey = Item{"tenant_id": Str(q.Tenant), "record": Str(key)}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query governance %s: %w", strings.TrimSuffix(prefix, "#"), err)
	}
	items := out.Items
	next := ""
	if len(items) > q.Limit {
		items = items[:q.Limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(GetString(items[len(items)-1], "record")))
	}
	return items, next, nil
}

// decodeTimedCursor accepts only a sort key of the listing's own kind, so a cursor of
// another listing cannot move this one to a foreign part of the partition.
func decodeTimedCursor(prefix, cursor string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", governance.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(raw), prefix)
	if !ok || len(rest) <= len(timeLayout) || rest[len(timeLayout)] != '#' {
		return "", governance.ErrBadCursor
	}
	if _, err := ParseTime(rest[:len(timeLayout)]); err != nil {
		return "", governance.ErrBadCursor
	}
	return string(raw), nil
}

// Append implements governance.Ledger.
func (s *Governance) Append(ctx context.Context, e governance.LedgerEntry) error {
	it := Item{
		"tenant_id":    Str(e.Tenant),
		"record":       Str(ledgerPrefix(e.Entity, e.RecordID) + FormatTime(e.Time) + "#" + e.ID),
		"id":           Str(e.ID),
		"at":           Str(FormatTime(e.Time)),
		"source":       Str(string(e.Source)),
		"target":       Str(string(e.Target)),
		"entity":       Str(e.Entity),
		"record_id":    Str(e.RecordID),
		"fields":       strList(e.Fields),
		"payload_hash": Str(e.PayloadHash),
		"expires_at":   expiresAt(e.Time, governance.LedgerRetention),
	}
	PutOptional(it, "idempotency_key", e.IdempotencyKey)
	PutOptional(it, "correlation_id", e.CorrelationID)
	if len(e.Trail) > 0 {
		trail, err := json.Marshal(e.Trail)
		if err != nil {
			return fmt.Errorf("ledger entry trail: %w", err)
		}
		it["trail"] = Str(string(trail))
	}
	return s.put(ctx, it, "ledger entry")
}

// Recent implements governance.Ledger with a consistent read, so a write just made is
// seen by the next loop check.
func (s *Governance) Recent(ctx context.Context, tenantID, entity, recordID string, since time.Time) ([]governance.LedgerEntry, error) {
	prefix := ledgerPrefix(entity, recordID)
	in := &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("tenant_id = :t AND #r BETWEEN :from AND :to"),
		ExpressionAttributeNames: map[string]string{"#r": "record"},
		ExpressionAttributeValues: Item{
			":t":    Str(tenantID),
			":from": Str(prefix + FormatTime(since)),
			// '~' sorts after every character of a formatted time.
			":to": Str(prefix + "~"),
		},
		ConsistentRead: aws.Bool(true),
	}
	var out []governance.LedgerEntry
	for {
		page, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query ledger: %w", err)
		}
		for _, it := range page.Items {
			e := governance.LedgerEntry{
				ID: GetString(it, "id"), Tenant: GetString(it, "tenant_id"),
				Source: connector.System(GetString(it, "source")), Target: connector.System(GetString(it, "target")),
				Entity: GetString(it, "entity"), RecordID: GetString(it, "record_id"), Fields: getStrList(it, "fields"),
				PayloadHash: GetString(it, "payload_hash"), IdempotencyKey: GetString(it, "idempotency_key"),
				CorrelationID: GetString(it, "correlation_id"),
			}
			if e.Time, err = ParseTime(GetString(it, "at")); err != nil {
				return nil, fmt.Errorf("ledger entry %s: at: %w", e.ID, err)
			}
			if raw := GetString(it, "trail"); raw != "" {
				if err := json.Unmarshal([]byte(raw), &e.Trail); err != nil {
					return nil, fmt.Errorf("ledger entry %s: trail: %w", e.ID, err)
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

// Overrides implements governance.OverrideStore.
func (s *Governance) Overrides(ctx context.Context, tenantID string) ([]governance.Entry, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		Key: Item{"tenant_id": Str(tenantID), "record": Str(manifestRecord)},
	})
	if err != nil {
		return nil, fmt.Errorf("get manifest overrides of %s: %w", tenantID, err)
	}
	raw := GetString(out.Item, "entries")
	if raw == "" {
		return nil, nil
	}
	var stored []storedEntry
	if err := json.Unmarshal([]byte(raw), &stored); err != nil {
		return nil, fmt.Errorf("manifest overrides of %s: %w", tenantID, err)
	}
	entries := make([]governance.Entry, 0, len(stored))
	for _, e := range stored {
		entries = append(entries, governance.Entry{Entity: e.Entity, Field: e.Field,
			Owner: connector.System(e.Owner), Policy: governance.Policy(e.Policy)})
	}
	return entries, nil
}

// PutOverrides implements governance.OverrideStore: one item per tenant, replaced whole.
func (s *Governance) PutOverrides(ctx context.Context, tenantID string, entries []governance.Entry) error {
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
		Item:      Item{"tenant_id": Str(tenantID), "record": Str(manifestRecord), "entries": Str(string(raw))},
	})
	if err != nil {
		return fmt.Errorf("put manifest overrides of %s: %w", tenantID, err)
	}
	return nil
}
