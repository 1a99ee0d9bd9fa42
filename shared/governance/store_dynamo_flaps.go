package governance

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

// The flapping counters: one item per record and window (flap#<record>#<window>), with a
// number attribute per field ("c:" and the field's name, so a field cannot shadow a key
// attribute). Counting the fields of one write is one conditional update of that item;
// only when a field is at the limit does it take a read and another update.

var _ FlapCounter = (*DynamoStore)(nil)

const prefixFlap = "flap#"

// flapChunk bounds the fields one update counts, keeping its condition expression within
// DynamoDB's 4 KB.
const flapChunk = 40

// CountWrites implements FlapCounter.
func (s *DynamoStore) CountWrites(ctx context.Context, tenant, key string, window time.Time, fields []string, limit int) ([]string, error) {
	k := dynamostore.Item{"tenant_id": dynamostore.Str(tenant), "record": dynamostore.Str(prefixFlap + keyEscaper.Replace(key) + "#" + dynamostore.FormatTime(window))}
	// The counters outlive their window by a day, like the ledger, for an investigation.
	exp := expiresAt(window, LedgerRetention)
	var over []string
	for start := 0; start < len(fields); start += flapChunk {
		o, err := s.countChunk(ctx, k, exp, fields[start:min(start+flapChunk, len(fields))], limit)
		if err != nil {
			return nil, err
		}
		over = append(over, o...)
	}
	return over, nil
}

// countChunk counts fields below the limit. When the condition fails it reads which
// fields are at the limit and counts the others. Each round's write token keeps an update
// the SDK sent again after its first was applied (its answer lost) from counting the
// write twice, or from reading its own count as the limit reached: its condition refuses
// a row carrying its token, and the read that follows finds the count done. The counters only grow, so a field found
// at the limit stays there and each failed round takes at least one field out; the bound
// on rounds is for a store that answers otherwise.
func (s *DynamoStore) countChunk(ctx context.Context, k dynamostore.Item, exp types.AttributeValue, fields []string, limit int) ([]string, error) {
	var over []string
	for round := 0; len(fields) > 0; round++ {
		if round > flapChunk {
			return nil, fmt.Errorf("count writes: the condition keeps failing with every field below %d", limit)
		}
		tok := dynamostore.NewWriteToken()
		names := map[string]string{"#x": "expires_at", "#w": dynamostore.WriteTokenAttribute}
		adds, conds := make([]string, len(fields)), make([]string, len(fields), len(fields)+1)
		// No parentheses: dynalite's expression parser backtracks on each parenthesised
		// group, and "(attribute_not_exists(#f) OR #f < :limit) AND (attribute_not_exists(#w)
		// OR #w <> :wtok)" took it 0.73 ms of CPU an update where this takes 0.22, a fifth
		// of a flow event's time in it. The meaning is the same in DynamoDB (and in dynalite
		// and moto): a comparison with a missing attribute is false, so NOT #f >= :limit
		// holds for a field not counted yet, and NOT #w = :wtok for an item without a token
		// (written with = rather than <>, so that it rests on that one rule).
		for i, f := range fields {
			n := "#f" + strconv.Itoa(i)
			names[n] = "c:" + f
			adds[i] = n + " :one"
			conds[i] = "NOT " + n + " >= :limit"
		}
		conds = append(conds, "NOT #w = :wtok")
		_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: k,
			UpdateExpression:         aws.String("SET #x = :exp, #w = :wtok ADD " + strings.Join(adds, ", ")),
			ConditionExpression:      aws.String(strings.Join(conds, " AND ")),
			ExpressionAttributeNames: names,
			ExpressionAttributeValues: dynamostore.Item{":one": dynamostore.Num(1), ":limit": dynamostore.Num(int64(limit)), ":exp": exp,
				":wtok": dynamostore.Str(tok)},
		})
		if err == nil {
			return over, nil
		}
		if !dynamostore.IsConditionFailed(err) {
			return nil, fmt.Errorf("count writes: %w", err)
		}
		out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: k, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, fmt.Errorf("read write counts: %w", err)
		}
		if dynamostore.Wrote(out.Item, tok) {
			return over, nil // this round's count, applied before its answer was lost
		}
		var below []string
		for _, f := range fields {
			if n, err := dynamostore.GetInt(out.Item, "c:"+f); err != nil || n >= int64(limit) {
				over = append(over, f)
			} else {
				below = append(below, f)
			}
		}
		fields = below
	}
	return over, nil
}
