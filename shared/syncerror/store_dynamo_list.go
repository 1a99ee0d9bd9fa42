package syncerror

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// listMaxReads bounds the queries one filtered page may take; a page that hits it ends
// early with a cursor, so a rare class never turns one request into a table scan.
const listMaxReads = 10

// List implements DecisionStore through the by_status index: Since is a range on
// the index sort key, Class a filter on the stored proposal. The cursor is the last
// returned row's index sort key, which also names its id.
func (s *DynamoClaims) List(ctx context.Context, tenantID string, q ListQuery) (Page, error) {
	key := statusKey(tenantID, q.Status)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexByStatus),
		KeyConditionExpression:    aws.String("status_key = :k"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(key)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(q.Limit + 1)),
	}
	if !q.Since.IsZero() {
		in.KeyConditionExpression = aws.String("status_key = :k AND claimed_sort >= :since")
		in.ExpressionAttributeValues[":since"] = dynamostore.Str(dynamostore.FormatTime(q.Since))
	}
	if q.Class != "" {
		// The proposal is stored as the JSON of Proposal, whose first field is
		// the class, so a prefix test is exact (the contract suite holds it to that).
		in.FilterExpression = aws.String("begins_with(proposal, :class)")
		in.ExpressionAttributeValues[":class"] = dynamostore.Str(`{"class":` + strconv.Quote(q.Class) + `,`)
	}
	if q.Cursor != "" {
		sortKey, id, ok := dynamostore.DecodeTimedCursor(q.Cursor, "")
		if !ok || !ValidClaimID(id) {
			return Page{}, ErrBadCursor
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "id": dynamostore.Str(id), "status_key": dynamostore.Str(key), "claimed_sort": dynamostore.Str(sortKey)}
	}
	var p Page
	cursorOf := func(c Claim) string {
		return dynamostore.EncodeCursor(dynamostore.FormatTime(c.ClaimedAt) + "#" + c.ID)
	}
	for reads := 0; ; reads++ {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return Page{}, fmt.Errorf("list %s claims of %s: %w", q.Status, tenantID, err)
		}
		for _, it := range out.Items {
			if len(p.Claims) == q.Limit {
				p.NextCursor = cursorOf(p.Claims[q.Limit-1])
				return p, nil
			}
			c, err := claimFrom(it)
			if err != nil {
				return Page{}, err
			}
			p.Claims = append(p.Claims, c)
		}
		if out.LastEvaluatedKey == nil {
			return p, nil
		}
		if reads+1 == listMaxReads {
			if n := len(p.Claims); n > 0 {
				p.NextCursor = cursorOf(p.Claims[n-1])
			} else {
				p.NextCursor = dynamostore.EncodeCursor(dynamostore.GetString(out.LastEvaluatedKey, "claimed_sort"))
			}
			return p, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
