package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
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
// documents, in one table: "trace#<inference>#<operation>" and
// "cost#<inference>#<operation>" under the tenant. The audit owns them because its AI
// activity routes read them; aiclient.Records maps them to the AI client's types, so this
// package (and every function that reads the audit) does not link the AI providers.
type AIRecords struct {
	client *dynamodb.Client
	table  string
	now    func() time.Time
}

// NewAIRecords returns the store for the physical table name.
func NewAIRecords(client *dynamodb.Client, table string) *AIRecords {
	return &AIRecords{client: client, table: table, now: time.Now}
}

// AIDoc is what identifies a stored trace or cost document.
type AIDoc struct {
	TenantID, InferenceID, Operation string
	At                               time.Time
}

func traceKey(inferenceID, op string) string { return "trace#" + inferenceID + "#" + op }
func costKey(inferenceID, op string) string  { return "cost#" + inferenceID + "#" + op }

// PutTraceDoc stores a trace. A replayed inference overwrites its own trace. The trace is
// stored deflated against a dictionary of the text rules traces share (data_z1,
// airecords_dict.go): a rules diagnosis's trace is 3.5 KB of JSON, 4 WRU written whole,
// 1.4 KB deflated alone (data_z, as traces were first stored: 2 WRU) and 0.7 KB with the
// dictionary.
// Its item also leaves out what the trace and the key hold and nothing reads beside them
// (claim_id, at: the trace's claimId and startedAt), so it fits one (issue 37 §1). Reads
// inflate it (recordData).
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

// PutCostDoc stores a cost record. The first record of an (inference, operation) stands,
// so a replay never counts a cost twice.
func (s *AIRecords) PutCostDoc(ctx context.Context, d AIDoc, costUSD float64, data []byte) error {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: dynamostore.Item{
			"tenant_id": dynamostore.Str(d.TenantID),
			"record":    dynamostore.Str(costKey(d.InferenceID, d.Operation)),
			"data":      dynamostore.Str(string(data)),
			"at":        dynamostore.Str(dynamostore.FormatTime(d.At)),
			"cost_usd":  &types.AttributeValueMemberN{Value: strconv.FormatFloat(costUSD, 'f', -1, 64)},
		},
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("put cost %s: %w", d.InferenceID, err)
	}
	return nil
}

// Docs returns the tenant's documents of kind ("trace" or "cost") whose inference id
// starts with prefix (a claim id gives every attempt of that claim).
func (s *AIRecords) Docs(ctx context.Context, tenantID, kind, prefix string) ([][]byte, error) {
	var out [][]byte
	err := s.query(ctx, tenantID, kind+"#"+prefix, func(data []byte) error {
		out = append(out, data)
		return nil
	})
	return out, err
}

func (s *AIRecords) query(ctx context.Context, tenantID, prefix string, each func([]byte) error) error {
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(#r, :p)"),
		ExpressionAttributeNames:  map[string]string{"#r": "record"},
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID), ":p": dynamostore.Str(prefix)},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("query ai records of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			data, err := recordData(it)
			if err != nil {
				return err
			}
			if err := each(data); err != nil {
				return err
			}
		}
	}
	return nil
}

var _ AIRecordReader = (*AIRecords)(nil)

// AIRecords implements AIRecordReader: one page of the claim's trace or cost
// documents, by record key. It reads one item more than limit to know whether a next page
// exists; the cursor is the last returned record key, accepted only under the same prefix.
func (s *AIRecords) AIRecords(ctx context.Context, tenantID, kind, claimID string, limit int, cursor string) ([]json.RawMessage, string, error) {
	prefix := kind + "#" + claimID + "-"
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(#r, :p)"),
		ExpressionAttributeNames:  map[string]string{"#r": "record"},
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID), ":p": dynamostore.Str(prefix)},
		Limit:                     aws.Int32(int32(limit + 1)),
	}
	if cursor != "" {
		last, ok := dynamostore.DecodeCursor(cursor, prefix)
		if !ok {
			return nil, "", ErrBadCursor
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str(last)}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query %s records of %s: %w", kind, claimID, err)
	}
	var docs []json.RawMessage
	next := ""
	for i, it := range out.Items {
		if i == limit {
			next = dynamostore.EncodeCursor(dynamostore.GetString(out.Items[i-1], "record"))
			break
		}
		data, err := recordData(it)
		if err != nil {
			return nil, "", err
		}
		docs = append(docs, data)
	}
	return docs, next, nil
}

// recordData is a record's document: data_z1 inflated with its dictionary, data_z
// without one (a trace as they were first deflated), or data as it is (a cost record, or
// a trace before that).
func recordData(it dynamostore.Item) ([]byte, error) {
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
	return data, nil
}
