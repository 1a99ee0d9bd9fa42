package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// DynamoStore is the Store on the flows table. Flows and runs are JSON documents next to
// the attributes their keys and indexes need.
type DynamoStore struct {
	client *dynamodb.Client
	table  string
}

var _ Store = (*DynamoStore)(nil)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

// Retention of events and runs.
const Retention = 30 * 24 * time.Hour

const (
	prefixFlow = "flow#"
	prefixRun  = "run#"
	prefixPoll = "poll#"
)

func (s *DynamoStore) key(tenantID, sk string) dynamostore.Item {
	return dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "sk": dynamostore.Str(sk)}
}

func (s *DynamoStore) get(ctx context.Context, tenantID, sk string) (dynamostore.Item, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: s.key(tenantID, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// Flows implements Store: every flow of the tenant (at most MaxFlows, one page).
func (s *DynamoStore) Flows(ctx context.Context, tenantID string) ([]Flow, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("tenant_id = :t AND begins_with(sk, :p)"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID),
			":p": dynamostore.Str(prefixFlow)},
		ConsistentRead: aws.Bool(true),
	}
	return dynamostore.QueryUpTo(ctx, s.client, in, MaxFlows, decodeFlow)
}

func decodeFlow(it dynamostore.Item) (Flow, error) {
	var f Flow
	// Numbers keep their digits, as the PUT decoded them: as float64 a filter on
	// 12345678901234567891 held for 12345678901234567000, another record.
	err := jsonvalue.Unmarshal([]byte(dynamostore.GetString(it, "doc")), &f)
	// Flows stored before triggers existed were all event flows.
	f.Trigger = f.TriggerOrDefault()
	return f, err
}

// Flow implements Store.
func (s *DynamoStore) Flow(ctx context.Context, tenantID, id string) (Flow, error) {
	it, err := s.get(ctx, tenantID, prefixFlow+id)
	if err != nil {
		return Flow{}, err
	}
	return decodeFlow(it)
}

// PutFlow implements Store.
func (s *DynamoStore) PutFlow(ctx context.Context, tenantID string, f Flow) error {
	doc, err := json.Marshal(f)
	if err != nil {
		return err
	}
	it := s.key(tenantID, prefixFlow+f.ID)
	it["doc"] = dynamostore.Str(string(doc))
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it})
	flowsGen.Add(1) // after the put: a read that cached the old flow before it is dropped
	return err
}

// DeleteFlow implements Store.
func (s *DynamoStore) DeleteFlow(ctx context.Context, tenantID, id string) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table),
		Key: s.key(tenantID, prefixFlow+id), ConditionExpression: aws.String("attribute_exists(sk)")})
	flowsGen.Add(1)
	if dynamostore.IsConditionFailed(err) {
		return ErrNotFound
	}
	return err
}

// storedRun is a run's document: the run and what it still has to write.
type storedRun struct {
	Run
	TenantID string           `json:"tenantId"`
	System   connector.System `json:"system"`
	Pending  *Pending         `json:"pending,omitempty"`
}

func runItem(r Run) (dynamostore.Item, error) {
	doc, err := json.Marshal(storedRun{Run: r, TenantID: r.TenantID, System: r.System, Pending: r.Pending})
	if err != nil {
		return nil, err
	}
	it := dynamostore.Item{
		"tenant_id":    dynamostore.Str(r.TenantID),
		"sk":           dynamostore.Str(prefixRun + r.ID),
		"doc":          dynamostore.Str(string(doc)),
		"attempts":     dynamostore.Num(int64(r.Attempts)),
		"flow_id":      dynamostore.Str(r.FlowID),
		"outcome":      dynamostore.Str(string(r.Outcome)),
		"runs_key":     dynamostore.Str(r.TenantID),
		"created_sort": dynamostore.Str(runSort(r)),
		"expires_at":   dynamostore.Num(runExpiry(r).Unix()),
	}
	if (r.Outcome == OutcomeRetrying || r.Outcome == OutcomeHeld) && r.NextAttemptAt != nil {
		it["due_key"] = dynamostore.Str(dueKey(r.TenantID, r.Outcome))
		it["due_at"] = dynamostore.Str(dynamostore.FormatTime(*r.NextAttemptAt))
	}
	return it, nil
}

// runExpiry is when the table's TTL may delete r: Retention after it was created, or after
// it last changed when that is later. A held run waits on an approval that does not
// expire, and only the run writes it once approved (held.go): each check of its approval
// saves it, keeping it while it waits.
func runExpiry(r Run) time.Time {
	return r.CreatedAt.Add(Retention).Add(max(r.UpdatedAt.Sub(r.CreatedAt), 0))
}

func runSort(r Run) string { return dynamostore.FormatTime(r.CreatedAt) + "#" + r.ID }

func decodeRun(it dynamostore.Item) (Run, error) {
	var sr storedRun
	// Numbers stay json.Number: a run read back (the redrive's, a resume's) writes its
	// pending fields, which must carry every digit the source sent (as float64,
	// 12345678901234567890 would be written 12345678901234567000).
	if err := jsonvalue.Unmarshal([]byte(dynamostore.GetString(it, "doc")), &sr); err != nil {
		return Run{}, err
	}
	r := sr.Run
	r.TenantID, r.System, r.Pending = sr.TenantID, sr.System, sr.Pending
	return r, nil
}

// SaveRun implements Store.
func (s *DynamoStore) SaveRun(ctx context.Context, r Run, attempts int) error {
	it, err := runItem(r)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it,
		// An ended run never changes again (a held one waits on its approval: held.go), and
		// an attempt saves only while the run is still its own: a redrive that took the
		// run over counted an attempt more.
		ConditionExpression: aws.String("attempts = :a AND outcome IN (:r, :h)"),
		ExpressionAttributeValues: dynamostore.Item{":a": dynamostore.Num(int64(attempts)),
			":r": dynamostore.Str(string(OutcomeRetrying)), ":h": dynamostore.Str(string(OutcomeHeld))}})
	if dynamostore.IsConditionFailed(err) {
		return ErrTaken
	}
	return err
}

// Run implements Store. An event's marker shares the runs' keys but is no run.
func (s *DynamoStore) Run(ctx context.Context, tenantID, id string) (Run, error) {
	it, err := s.get(ctx, tenantID, prefixRun+id)
	if err != nil {
		return Run{}, err
	}
	if isMarker(it) {
		return Run{}, ErrNotFound
	}
	return decodeRun(it)
}

// maxScanPages bounds the index pages one filtered listing reads before it answers a
// shorter page with a cursor.
const maxScanPages = 10

// Runs implements Store through the by-time index, newest first. Filters are applied
// to each index page; the cursor is the last run's index sort key.
func (s *DynamoStore) Runs(ctx context.Context, tenantID string, q RunQuery) ([]Run, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexRunsByTime),
		KeyConditionExpression:    aws.String("runs_key = :t"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(100),
	}
	var filters []string
	if q.FlowID != "" {
		filters = append(filters, "flow_id = :f")
		in.ExpressionAttributeValues[":f"] = dynamostore.Str(q.FlowID)
	}
	if q.Outcome != "" {
		filters = append(filters, "outcome = :o")
		in.ExpressionAttributeValues[":o"] = dynamostore.Str(string(q.Outcome))
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	if q.Cursor != "" {
		sortKey, id, err := decodeRunCursor(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "sk": dynamostore.Str(prefixRun + id),
			"runs_key": dynamostore.Str(tenantID), "created_sort": dynamostore.Str(sortKey)}
	}
	var runs []Run
	for page := 0; page < maxScanPages; page++ {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, "", fmt.Errorf("list runs of %s: %w", tenantID, err)
		}
		for _, it := range out.Items {
			r, err := decodeRun(it)
			if err != nil {
				return nil, "", err
			}
			if runs = append(runs, r); len(runs) == q.Limit+1 {
				return runs[:q.Limit], encodeRunCursor(runs[q.Limit-1]), nil
			}
		}
		if out.LastEvaluatedKey == nil {
			return runs, "", nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	// Filters matched little: answer what was found and go on where the reading stopped.
	last := in.ExclusiveStartKey
	return runs, dynamostore.EncodeCursor(dynamostore.GetString(last, "created_sort")), nil
}

func encodeRunCursor(r Run) string { return dynamostore.EncodeCursor(runSort(r)) }

func decodeRunCursor(cursor string) (sortKey, id string, err error) {
	sortKey, id, ok := dynamostore.DecodeTimedCursor(cursor, "")
	if !ok || !ValidRunID(id) {
		return "", "", ErrBadCursor
	}
	return sortKey, id, nil
}

// DueRuns implements Store through the sparse due index, oldest due first.
//
// Held runs are due under a key of their own (dueKey) and listed apart, up to limit too:
// a tenant can hold thousands waiting on approvals for weeks, and in one list their
// checks, oldest due first, would fill every page the redrive takes and keep retrying
// runs waiting behind them.
func (s *DynamoStore) DueRuns(ctx context.Context, tenantID string, now time.Time, limit int) ([]Run, error) {
	var out []Run
	for _, o := range []Outcome{OutcomeRetrying, OutcomeHeld} {
		in := &dynamodb.QueryInput{
			TableName:              aws.String(s.table),
			IndexName:              aws.String(blueprint.IndexRunsDue),
			KeyConditionExpression: aws.String("due_key = :t AND due_at <= :now"),
			ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(dueKey(tenantID, o)),
				":now": dynamostore.Str(dynamostore.FormatTime(now))},
		}
		runs, err := dynamostore.QueryUpTo(ctx, s.client, in, limit, decodeRun)
		if err != nil {
			return nil, err
		}
		out = append(out, runs...)
	}
	return out, nil
}

// dueKey is the due index's partition of a tenant's runs of outcome o: the tenant's own
// for retrying runs (and held runs stored before they had theirs, listed with them), a
// key of its own for held runs.
func dueKey(tenantID string, o Outcome) string {
	if o == OutcomeHeld {
		return tenantID + "#held"
	}
	return tenantID
}

func pollKey(src Endpoint) string { return prefixPoll + string(src.System) + "#" + src.Entity }

// Watermark implements Store.
func (s *DynamoStore) Watermark(ctx context.Context, tenantID string, src Endpoint) (Watermark, error) {
	it, err := s.get(ctx, tenantID, pollKey(src))
	if err != nil {
		return Watermark{}, err
	}
	var sw storedWatermark
	if err := json.Unmarshal([]byte(dynamostore.GetString(it, "doc")), &sw); err != nil {
		return Watermark{}, fmt.Errorf("watermark %s: %w", src, err)
	}
	sw.Watermark.Cursor = sw.Cursor
	return sw.Watermark, nil
}

// storedWatermark is a watermark's document: the watermark and its cursor.
type storedWatermark struct {
	Watermark
	Cursor string `json:"cursor,omitempty"`
}

// SaveWatermark implements Store, conditional on the stored watermark's polled_at.
func (s *DynamoStore) SaveWatermark(ctx context.Context, tenantID string, w Watermark, prev *time.Time) error {
	doc, err := json.Marshal(storedWatermark{Watermark: w, Cursor: w.Cursor})
	if err != nil {
		return err
	}
	it := s.key(tenantID, pollKey(w.Source))
	it["doc"] = dynamostore.Str(string(doc))
	it["polled_at"] = dynamostore.Str(dynamostore.FormatTime(w.PolledAt))
	in := &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(sk)")}
	if prev != nil {
		in.ConditionExpression = aws.String("polled_at = :p")
		in.ExpressionAttributeValues = dynamostore.Item{":p": dynamostore.Str(dynamostore.FormatTime(*prev))}
	}
	_, err = s.client.PutItem(ctx, in)
	if dynamostore.IsConditionFailed(err) {
		return ErrTaken
	}
	return err
}
