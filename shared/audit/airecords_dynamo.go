package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/deflate"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// TraceRetention is how long reasoning traces are kept before DynamoDB expires them.
const TraceRetention = 90 * 24 * time.Hour

// AIRecords stores the governed AI client's reasoning traces and cost records, as JSON
// documents, in one table: "trace#<inference>#<operation>", and "cost#<inference>" with
// one document per provider call (written before, "cost#<inference>#<operation>", one
// each, which still read). The audit owns them because its AI activity routes read them; aiclient.Records
// maps them to the AI client's types, so this package (and every function that reads the
// audit) does not link the AI providers.
type AIRecords struct {
	client *dynamodb.Client
	table  string
	now    func() time.Time
}

// NewAIRecords returns the store for the physical table name.
func NewAIRecords(client *dynamodb.Client, table string) *AIRecords {
	return &AIRecords{client: client, table: table, now: time.Now}
}

// AIDoc is what identifies a stored trace.
type AIDoc struct {
	TenantID, InferenceID, Operation string
}

func traceKey(inferenceID, op string) string { return "trace#" + inferenceID + "#" + op }

// PutTraceDoc stores a trace. A replayed inference overwrites its own trace. The trace is
// stored deflated against a dictionary of the text rules traces share (data_z1,
// airecords_dict.go): a rules diagnosis's trace is 3.5 KB of JSON, 4 WRU written whole,
// 1.4 KB deflated alone (data_z, as traces were first stored: 2 WRU) and 0.7 KB with the
// dictionary.
// Its item also leaves out what the trace and the key hold and nothing reads beside them
// (claim_id, at: the trace's claimId and startedAt), so it fits one (issue 37 §1). Reads
// inflate it (recordDocs).
func (s *AIRecords) PutTraceDoc(ctx context.Context, d AIDoc, data []byte) error {
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: s.traceItem(d, data)}); err != nil {
		return fmt.Errorf("put trace %s: %w", d.InferenceID, err)
	}
	return nil
}

func (s *AIRecords) traceItem(d AIDoc, data []byte) dynamostore.Item {
	return dynamostore.Item{
		"tenant_id":  dynamostore.Str(d.TenantID),
		"record":     dynamostore.Str(traceKey(d.InferenceID, d.Operation)),
		"data_z1":    &types.AttributeValueMemberB{Value: deflate.CompressDict(data, traceDict1)},
		"expires_at": dynamostore.Num(s.now().Add(TraceRetention).Unix()),
	}
}

// Docs returns the tenant's documents of kind ("trace" or "cost") whose inference id
// starts with prefix (a claim id gives every attempt of that claim).
func (s *AIRecords) Docs(ctx context.Context, tenantID, kind, prefix string) ([][]byte, error) {
	p := dynamodb.NewQueryPaginator(s.client, s.queryInput(tenantID, kind+"#"+prefix))
	var out [][]byte
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query ai records of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			docs, err := recordDocs(it)
			if err != nil {
				return nil, err
			}
			out = append(out, docs...)
		}
	}
	return out, nil
}

func (s *AIRecords) queryInput(tenantID, prefix string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(#r, :p)"),
		ExpressionAttributeNames:  map[string]string{"#r": "record"},
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID), ":p": dynamostore.Str(prefix)},
	}
}

var _ AIRecordReader = (*AIRecords)(nil)

// AIRecords implements AIRecordReader: one page of the claim's trace or cost documents,
// by record key and, within a cost item, by operation. A page holds limit documents, so
// it can end inside an item: its cursor then names the item and how many of its
// documents were returned (encodeDocCursor), and the next page reads that item's rest
// first. It reads one document more than limit to know whether a next page exists.
func (s *AIRecords) AIRecords(ctx context.Context, tenantID, kind, claimID string, limit int, cursor string) ([]json.RawMessage, string, error) {
	prefix := kind + "#" + claimID + "-"
	page := docPage{limit: limit}
	in := s.queryInput(tenantID, prefix)
	in.Limit = aws.Int32(int32(limit + 1))
	if cursor != "" {
		key, done, ok := decodeDocCursor(cursor, prefix)
		if !ok {
			return nil, "", ErrBadCursor
		}
		if done > 0 {
			docs, err := s.itemDocs(ctx, tenantID, key)
			if err != nil {
				return nil, "", err
			}
			if page.add(key, docs, done) {
				return page.docs, page.next, nil
			}
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str(key)}
	}
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, "", fmt.Errorf("query %s records of %s: %w", kind, claimID, err)
		}
		for _, it := range out.Items {
			docs, err := recordDocs(it)
			if err != nil {
				return nil, "", err
			}
			if page.add(dynamostore.GetString(it, "record"), docs, 0) {
				return page.docs, page.next, nil
			}
		}
		if out.LastEvaluatedKey == nil {
			return page.docs, "", nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// itemDocs are the documents of the item key (none when it is gone).
func (s *AIRecords) itemDocs(ctx context.Context, tenantID, key string) ([][]byte, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str(key)}})
	if err != nil {
		return nil, fmt.Errorf("get ai record %s: %w", key, err)
	}
	if out.Item == nil {
		return nil, nil
	}
	return recordDocs(out.Item)
}

// docPage collects one page of documents, item by item.
type docPage struct {
	limit   int
	docs    []json.RawMessage
	lastKey string // the last item whose documents are all in the page
	next    string
}

// add appends the documents of the item key from its from-th on, and reports whether the
// page is full with a document left over, next then set to the cursor after the last
// document added.
func (p *docPage) add(key string, docs [][]byte, from int) bool {
	for i := from; i < len(docs); i++ {
		if len(p.docs) == p.limit {
			p.next = encodeDocCursor(p.lastKey, 0)
			if i > 0 {
				p.next = encodeDocCursor(key, i)
			}
			return true
		}
		p.docs = append(p.docs, docs[i])
	}
	p.lastKey = key
	return false
}

// A page's cursor is the record key of the last item it read, followed, when the page
// ended inside that item, by a line break and how many of its documents it returned (a
// record key holds ids, never a line break). A cursor of before cost items is a record
// key, and still pages.
func encodeDocCursor(key string, done int) string {
	if done == 0 {
		return dynamostore.EncodeCursor(key)
	}
	return dynamostore.EncodeCursor(key + "\n" + strconv.Itoa(done))
}

func decodeDocCursor(cursor, prefix string) (key string, done int, ok bool) {
	raw, ok := dynamostore.DecodeCursor(cursor, prefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(raw, '\n')
	if i < 0 {
		return raw, 0, true
	}
	done, err := strconv.Atoi(raw[i+1:])
	if err != nil || done < 1 || strconv.Itoa(done) != raw[i+1:] {
		return "", 0, false
	}
	return raw[:i], done, true
}

// recordDocs are the documents an item holds: a cost item's, one per operation
// (costDocs); or one trace or cost record: data_z1 inflated with its dictionary, data_z
// without one (a trace as they were first deflated), or data as it is (a trace before
// that, a cost record before cost items).
func recordDocs(it dynamostore.Item) ([][]byte, error) {
	if docs := costDocs(it); docs != nil {
		return docs, nil
	}
	var data []byte
	var err error
	if z, ok := it["data_z1"].(*types.AttributeValueMemberB); ok {
		data, err = deflate.InflateDict(z.Value, traceDict1)
	} else if z, ok := it["data_z"].(*types.AttributeValueMemberB); ok {
		data, err = deflate.Inflate(z.Value)
	} else {
		data = []byte(dynamostore.GetString(it, "data"))
	}
	if err != nil {
		return nil, fmt.Errorf("ai record %s: %w", dynamostore.GetString(it, "record"), err)
	}
	return [][]byte{data}, nil
}
