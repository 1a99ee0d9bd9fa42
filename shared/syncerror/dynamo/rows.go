package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// maxBatchGet is BatchGetItem's limit of keys per call (API reference, BatchGetItem: "A
// single operation can retrieve up to 16 MB of data, which can contain as many as 100
// items").
const maxBatchGet = 100

// batchTries bounds the calls per chunk: BatchGetItem may answer some keys as
// UnprocessedKeys, to be asked again.
const batchTries = 5

// wholeRows reads the rows of found (claims decoded from an index that projects part of
// the row: blueprint.ByStatusAttributes) whole and strongly consistent, in found's order,
// for the sweeps that act on a row (ExpiredLeases, DueRetries). A row gone since the
// index answered is left out.
func (s *DynamoClaims) wholeRows(ctx context.Context, tenantID string, found []syncerror.Claim) ([]syncerror.Claim, error) {
	byID := map[string]dynamostore.Item{}
	for start := 0; start < len(found); start += maxBatchGet {
		keys := make([]map[string]types.AttributeValue, 0, maxBatchGet)
		for _, c := range found[start:min(start+maxBatchGet, len(found))] {
			keys = append(keys, s.key(tenantID, c.ID))
		}
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
		for try := 0; len(req) > 0; try++ {
			if try == batchTries {
				return nil, fmt.Errorf("read rows of %s: keys left unprocessed after %d tries", tenantID, batchTries)
			}
			out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("read rows of %s: %w", tenantID, err)
			}
			for _, it := range out.Responses[s.table] {
				byID[dynamostore.GetString(it, "id")] = it
			}
			req = out.UnprocessedKeys
		}
	}
	rows := make([]syncerror.Claim, 0, len(found))
	for _, c := range found {
		it, ok := byID[c.ID]
		if !ok {
			continue
		}
		row, err := claimFrom(it)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}
