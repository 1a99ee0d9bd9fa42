package flow

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

// batchTries bounds the calls one batchGet makes: BatchGetItem may leave keys unprocessed
// under load, which are asked again after a short growing wait.
const batchTries = 5

// batchGet reads up to maxBatchGet items of the table by key, strongly consistent, in
// one BatchGetItem (more only for keys it left unprocessed); absent items are left out.
func (s *DynamoStore) batchGet(ctx context.Context, keys []dynamostore.Item) ([]dynamostore.Item, error) {
	req := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
	var out []dynamostore.Item
	for try := 0; len(req[s.table].Keys) > 0; try++ {
		if try == batchTries {
			return nil, fmt.Errorf("batch get: %d keys unprocessed after %d tries", len(req[s.table].Keys), try)
		}
		if try > 0 {
			time.Sleep(time.Duration(try*try) * 10 * time.Millisecond)
		}
		res, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Responses[s.table]...)
		req = res.UnprocessedKeys
	}
	return out, nil
}
