package audit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

// CostDoc is the cost record of one provider call of an inference, as JSON.
type CostDoc struct {
	Operation string
	Data      []byte
}

// costOp prefixes the attribute of each operation's document in a cost item; no other
// attribute of the table starts with it.
const costOp = "op#"

// PutCostDocs stores cost records of one inference in its one item, "cost#<inference>",
// one attribute per operation: the calls an inference records together are one write
// (a rules diagnosis's two were two, 1 WRU each; issue 37 §1). The first record of an
// (inference, operation) stands (if_not_exists), so a replay never counts a cost twice;
// and a later write adds its operations beside those stored, never removing one, so a
// call's cost stored before the next call began outlives a crash in that call.
//
// An inference that wrote per-operation items (as before cost items) and is replayed
// after the deploy counts its calls again: at most the few in flight at the deploy.
func (s *AIRecords) PutCostDocs(ctx context.Context, tenantID, inferenceID string, docs []CostDoc) error {
	if len(docs) == 0 {
		return nil
	}
	var set []string
	names := map[string]string{}
	values := dynamostore.Item{}
	for i, d := range docs {
		n, v := "#o"+strconv.Itoa(i), ":d"+strconv.Itoa(i)
		names[n], values[v] = costOp+d.Operation, dynamostore.Str(string(d.Data))
		set = append(set, n+" = if_not_exists("+n+", "+v+")")
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "record": dynamostore.Str("cost#" + inferenceID)},
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if err != nil {
		return fmt.Errorf("put costs %s: %w", inferenceID, err)
	}
	return nil
}

// costDocs are a cost item's documents in the order of their operations' names, the
// order the per-operation items of before sort in; nil for any other item.
func costDocs(it dynamostore.Item) [][]byte {
	var ops []string
	for name := range it {
		if strings.HasPrefix(name, costOp) {
			ops = append(ops, name)
		}
	}
	slices.Sort(ops)
	var docs [][]byte
	for _, op := range ops {
		if v, ok := it[op].(*types.AttributeValueMemberS); ok {
			docs = append(docs, []byte(v.Value))
		}
	}
	return docs
}
