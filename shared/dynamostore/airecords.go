package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
)

// TraceRetention is how long reasoning traces are kept before DynamoDB expires them.
const TraceRetention = 90 * 24 * time.Hour

// AIRecords stores the governed AI client's reasoning traces and cost records in one table:
// "trace#<inference>#<operation>" and "cost#<inference>#<operation>" under the tenant.
type AIRecords struct {
	client *dynamodb.Client
	table  string
	now    func() time.Time
}

var (
	_ ai.TraceStore = (*AIRecords)(nil)
	_ ai.CostStore  = (*AIRecords)(nil)
)

// NewAIRecords returns the store for the physical table name.
func NewAIRecords(client *dynamodb.Client, table string) *AIRecords {
	return &AIRecords{client: client, table: table, now: time.Now}
}

func traceKey(inferenceID, op string) string { return "trace#" + inferenceID + "#" + op }
func costKey(inferenceID, op string) string  { return "cost#" + inferenceID + "#" + op }

// PutTrace implements ai.TraceStore. A replayed inference overwrites its own trace.
func (s *AIRecords) PutTrace(ctx context.Context, t ai.Trace) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	it := item{
		"tenant_id":  str(t.TenantID),
		"record":     str(traceKey(t.InferenceID, t.Operation)),
		"data":       str(string(data)),
		"at":         str(formatTime(t.StartedAt)),
		"expires_at": num(s.now().Add(TraceRetention).Unix()),
	}
	putOptional(it, "claim_id", t.ClaimID)
	if _, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it}); err != nil {
		return fmt.Errorf("put trace %s: %w", t.InferenceID, err)
	}
	return nil
}

// PutCost implements ai.CostStore. The first record of an (inference, operation) stands,
// so a replay never counts a cost twice.
func (s *AIRecords) PutCost(ctx context.Context, c ai.CostRecord) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: item{
			"tenant_id": str(c.TenantID),
			"record":    str(costKey(c.InferenceID, c.Operation)),
			"data":      str(string(data)),
			"at":        str(formatTime(c.At)),
			"cost_usd":  &types.AttributeValueMemberN{Value: strconv.FormatFloat(c.CostUSD, 'f', -1, 64)},
		},
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if isConditionFailed(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("put cost %s: %w", c.InferenceID, err)
	}
	return nil
}

// Traces returns the tenant's traces whose inference id starts with prefix (a claim id
// gives every attempt of that claim).
func (s *AIRecords) Traces(ctx context.Context, tenantID, prefix string) ([]ai.Trace, error) {
	var out []ai.Trace
	err := s.query(ctx, tenantID, "trace#"+prefix, func(data []byte) error {
		var t ai.Trace
		if err := json.Unmarshal(data, &t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// Costs returns the tenant's cost records whose inference id starts with prefix.
func (s *AIRecords) Costs(ctx context.Context, tenantID, prefix string) ([]ai.CostRecord, error) {
	var out []ai.CostRecord
	err := s.query(ctx, tenantID, "cost#"+prefix, func(data []byte) error {
		var c ai.CostRecord
		if err := json.Unmarshal(data, &c); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

func (s *AIRecords) query(ctx context.Context, tenantID, prefix string, each func([]byte) error) error {
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(#r, :p)"),
		ExpressionAttributeNames:  map[string]string{"#r": "record"},
		ExpressionAttributeValues: item{":t": str(tenantID), ":p": str(prefix)},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("query ai records of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			if err := each([]byte(getString(it, "data"))); err != nil {
				return err
			}
		}
	}
	return nil
}

var _ audit.AIRecordReader = (*AIRecords)(nil)

// AIRecords implements audit.AIRecordReader: one page of the claim's trace or cost
// documents, by record key. It reads one item more than limit to know whether a next page
// exists; the cursor is the last returned record key, accepted only under the same prefix.
func (s *AIRecords) AIRecords(ctx context.Context, tenantID, kind, claimID string, limit int, cursor string) ([]json.RawMessage, string, error) {
	prefix := kind + "#" + claimID + "-"
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(#r, :p)"),
		ExpressionAttributeNames:  map[string]string{"#r": "record"},
		ExpressionAttributeValues: item{":t": str(tenantID), ":p": str(prefix)},
		Limit:                     aws.Int32(int32(limit + 1)),
	}
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || !strings.HasPrefix(string(raw), prefix) {
			return nil, "", audit.ErrBadCursor
		}
		in.ExclusiveStartKey = item{"tenant_id": str(tenantID), "record": str(string(raw))}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query %s records of %s: %w", kind, claimID, err)
	}
	var docs []json.RawMessage
	next := ""
	for i, it := range out.Items {
		if i == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(getString(out.Items[i-1], "record")))
			break
		}
		docs = append(docs, json.RawMessage(getString(it, "data")))
	}
	return docs, next, nil
}
