package dynamostore

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxBatchGet is BatchGetItem's limit of keys per call (API reference, BatchGetItem: "A
// single operation can retrieve up to 16 MB of data, which can contain as many as 100
// items").
const MaxBatchGet = 100

// batchTries bounds the calls per chunk: BatchGetItem may leave keys unprocessed under
// load, which are asked again after a short growing wait.
const batchTries = 5

// BatchGet reads the items of table by key, strongly consistent, MaxBatchGet keys a call
// (more calls only for keys a call left unprocessed); absent items are left out, and the
// items come in no particular order.
func BatchGet(ctx context.Context, client *dynamodb.Client, table string, keys []Item) ([]Item, error) {
	var out []Item
	for start := 0; start < len(keys); start += MaxBatchGet {
		chunk := keys[start:min(start+MaxBatchGet, len(keys))]
		req := map[string]types.KeysAndAttributes{table: {Keys: chunk, ConsistentRead: aws.Bool(true)}}
		for try := 0; len(req[table].Keys) > 0; try++ {
			if try == batchTries {
				return nil, fmt.Errorf("batch get %s: %d keys unprocessed after %d tries", table, len(req[table].Keys), try)
			}
			if try > 0 {
				time.Sleep(time.Duration(try*try) * 10 * time.Millisecond)
			}
			res, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("batch get %s: %w", table, err)
			}
			out = append(out, res.Responses[table]...)
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}
