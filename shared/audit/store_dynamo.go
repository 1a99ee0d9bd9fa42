package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/identity"
)

// DynamoStore is the Store on the audit table. The sort key is "<time>#<id>" so a tenant's
// records sort by time; the by_action_type index does the same per action type, for the
// sparse types only (denseType says why).
type DynamoStore struct {
	client *dynamodb.Client
	table  string
}

var _ Store = (*DynamoStore)(nil)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

func auditSort(r Record) string { return dynamostore.FormatTime(r.At) + "#" + r.ID }

// Put implements Store. Records are immutable: a put never overwrites. Its condition
// failing means the record is there already: the key is the record's time to the
// nanosecond and 64 random bits, so the item under it is this record, stored by an
// attempt whose answer was lost (a dropped connection, a body failing its checksum) before
// the SDK sent the put again. That is success; reported as a failure it failed a
// diagnosis whose inference was recorded (CI, moto, 2026-11-30).
func (s *DynamoStore) Put(ctx context.Context, r Record) error {
	it, err := recordItem(r)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("put audit record: %w", err)
	}
	return nil
}

// Batched is a Store whose records can be written in another store's BatchWriteItem: the
// guard stores a write's audit records with its ledger entries in one call (issue 37 §3).
// Each record is still one item of the audit table, read as any other.
type Batched interface {
	Store
	// WriteRequest is r as a put request of a BatchWriteItem on table. A batch put has no
	// condition: a record's sort key is its time and 64 random bits, so overwriting
	// another is as unlikely as Put's condition failing.
	WriteRequest(r Record) (table string, req types.WriteRequest, err error)
}

var _ Batched = (*DynamoStore)(nil)

// WriteRequest implements Batched.
func (s *DynamoStore) WriteRequest(r Record) (string, types.WriteRequest, error) {
	it, err := recordItem(r)
	if err != nil {
		return "", types.WriteRequest{}, err
	}
	return s.table, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}, nil
}

// recordItem is a record's item.
func recordItem(r Record) (dynamostore.Item, error) {
	actor, err := json.Marshal(r.Actor)
	if err != nil {
		return nil, err
	}
	it := dynamostore.Item{
		"tenant_id":   dynamostore.Str(r.TenantID),
		"sort":        dynamostore.Str(auditSort(r)),
		"id":          dynamostore.Str(r.ID),
		"at":          dynamostore.Str(dynamostore.FormatTime(r.At)),
		"actor":       dynamostore.Str(string(actor)),
		"action_type": dynamostore.Str(r.ActionType),
		"action_key":  dynamostore.Str(r.ActionKey),
		"result":      dynamostore.Str(r.Result),
	}
	if !denseType(r.ActionType) {
		it["tenant_action"] = dynamostore.Str(r.TenantID + "#" + r.ActionType)
	}
	dynamostore.PutOptional(it, "resource", r.Resource)
	dynamostore.PutOptional(it, "correlation_id", r.CorrelationID)
	dynamostore.PutOptional(it, "details", string(r.Details))
	return it, nil
}

// denseType reports whether records of an action type stay out of the by_action_type
// index (issue 37: cost). An index entry is one more WRU per record written, and the
// machine types (a DLP scan before anything leaves, each AI inference, each connector
// write) are written on every sync error and flow event, most of the log: their entries
// were 3 of a sync error's 8 audit WRU and 2 of a flow event's 4 (2026-11-30). A query for
// one of them needs no index: they lie densely in the tenant's own partition, so a read of
// it filtered on the type drops few records, and a read is billed per 4 KB examined, not
// per record. The rare types a person looks for (decisions, settings, governance, finance,
// sessions, MCP calls) would be found only past all of those, so they keep their entries.
func denseType(actionType string) bool {
	switch actionType {
	case TypeDLP, TypeAI, TypeConnector:
		return true
	}
	return false
}

// What a query costs. Every query reads one partition, the tenant's or (with a sparse
// action type) the by_action_type index's, over the window's range of its sort key, so an
// unfiltered read is proportional to the records answered. A filter (an actor, or a dense
// action type on the tenant's partition) is a FilterExpression on that read: DynamoDB
// reads the records and drops the others, so a filtered page pays for the records it
// examined. To keep one request from reading a whole month, a filtered page examines at
// most FilteredScanCap records and then ends with a cursor at the last one examined, even
// with fewer records than asked for (or none); the next page goes on from there.
const (
	filteredMaxReads = 10
	filteredReads    = 100
	// FilteredScanCap bounds the records one filtered page examines.
	FilteredScanCap = filteredMaxReads * filteredReads
)

// Query implements Store. It reads one item more than the limit to know whether a
// next page exists; the cursor is the last returned (or, see above, examined) record's
// sort key.
func (s *DynamoStore) Query(ctx context.Context, q Query) (Page, error) {
	in, err := s.queryInput(q)
	if err != nil {
		return Page{}, err
	}
	var p Page
	for reads := 1; ; reads++ {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return Page{}, fmt.Errorf("query audit: %w", err)
		}
		for _, it := range out.Items {
			if len(p.Records) == q.Limit {
				p.NextCursor = dynamostore.EncodeCursor(auditSort(p.Records[q.Limit-1]))
				return p, nil
			}
			r, err := auditFrom(it)
			if err != nil {
				return Page{}, err
			}
			p.Records = append(p.Records, r)
		}
		if out.LastEvaluatedKey == nil {
			return p, nil
		}
		if reads == filteredMaxReads {
			p.NextCursor = dynamostore.EncodeCursor(dynamostore.GetString(out.LastEvaluatedKey, "sort"))
			return p, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// queryInput is the first read of q. A cursor is a sort key, the same on the tenant's
// partition and in the index, so a cursor a page of one type issued before that type
// became dense goes on from the same record on the partition, which holds every record
// the index did: nothing is skipped or read twice.
func (s *DynamoStore) queryInput(q Query) (*dynamodb.QueryInput, error) {
	in := &dynamodb.QueryInput{
		TableName:        aws.String(s.table),
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
		ExpressionAttributeValues: dynamostore.Item{
			":from": dynamostore.Str(dynamostore.FormatTime(q.From)),
			// "<to>" sorts before "<to>#id", so records at exactly To are excluded.
			":to": dynamostore.Str(dynamostore.FormatTime(q.To)),
		},
	}
	pk, pkValue := "tenant_id", q.TenantID
	if q.ActionType != "" && !denseType(q.ActionType) {
		in.IndexName = aws.String(blueprint.IndexByActionType)
		pk, pkValue = "tenant_action", q.TenantID+"#"+q.ActionType
	}
	in.KeyConditionExpression = aws.String(pk + " = :pk AND #sort BETWEEN :from AND :to")
	in.ExpressionAttributeNames = map[string]string{"#sort": "sort"}
	in.ExpressionAttributeValues[":pk"] = dynamostore.Str(pkValue)
	if f := queryFilter(q, in.ExpressionAttributeNames, in.ExpressionAttributeValues); f != "" {
		in.FilterExpression = aws.String(f)
		in.Limit = aws.Int32(filteredReads)
	}
	if q.Cursor != "" {
		sortKey, _, ok := dynamostore.DecodeTimedCursor(q.Cursor, "")
		if !ok {
			return nil, ErrBadCursor
		}
		start := dynamostore.Item{"tenant_id": dynamostore.Str(q.TenantID), "sort": dynamostore.Str(sortKey)}
		if in.IndexName != nil {
			start["tenant_action"] = dynamostore.Str(pkValue)
		}
		in.ExclusiveStartKey = start
	}
	return in, nil
}

// queryFilter is the FilterExpression of q, "" for none, its names and values added to
// names and vals.
func queryFilter(q Query, names map[string]string, vals dynamostore.Item) string {
	var conds []string
	for _, f := range []struct{ attr, value string }{{"action_key", q.ActionKey}, {"resource", q.Resource}, {"result", q.Result}} {
		if f.value != "" {
			// Named: result (and perhaps resource) is a reserved word.
			names["#"+f.attr], vals[":"+f.attr] = f.attr, dynamostore.Str(f.value)
			conds = append(conds, "#"+f.attr+" = :"+f.attr)
		}
	}
	if denseType(q.ActionType) {
		// Records of a dense type written before it was dense carry an index key too;
		// on the partition they are found once like the rest.
		conds = append(conds, "action_type = :type")
		vals[":type"] = dynamostore.Str(q.ActionType)
	}
	if q.Actor != "" {
		// The actor is stored as the JSON of identity.Identity, whose actor field follows
		// the tenant and precedes the always-present source: outside a string every quote
		// is structural, so this fragment matches that field exactly (the contract suite
		// holds it to that), on records written before the filter existed too.
		frag, _ := json.Marshal(q.Actor)
		conds = append(conds, "contains(actor, :actor)")
		vals[":actor"] = dynamostore.Str(`,"actor":` + string(frag) + `,`)
	}
	return strings.Join(conds, " AND ")
}

func auditFrom(it dynamostore.Item) (Record, error) {
	r := Record{
		TenantID:      dynamostore.GetString(it, "tenant_id"),
		ID:            dynamostore.GetString(it, "id"),
		ActionType:    dynamostore.GetString(it, "action_type"),
		ActionKey:     dynamostore.GetString(it, "action_key"),
		Result:        dynamostore.GetString(it, "result"),
		Resource:      dynamostore.GetString(it, "resource"),
		CorrelationID: dynamostore.GetString(it, "correlation_id"),
	}
	if d := dynamostore.GetString(it, "details"); d != "" {
		r.Details = json.RawMessage(d)
	}
	var err error
	if r.At, err = dynamostore.ParseTime(dynamostore.GetString(it, "at")); err != nil {
		return Record{}, fmt.Errorf("audit record %s: at: %w", r.ID, err)
	}
	var actor identity.Identity
	if err := json.Unmarshal([]byte(dynamostore.GetString(it, "actor")), &actor); err != nil {
		return Record{}, fmt.Errorf("audit record %s: actor: %w", r.ID, err)
	}
	r.Actor = actor
	return r, nil
}
