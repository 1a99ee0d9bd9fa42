package dynamostore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// WriteTokenAttribute holds the token of the conditional write that last wrote an item.
//
// The SDK sends a request again when its answer was lost (a connection dropped after the
// request left, a 5xx, a body failing its checksum), and DynamoDB may have applied the
// first one. A conditional write sent again then fails its condition on its own earlier
// write; the token tells that apart from another writer's change, so the caller neither
// reports a write that happened as failed nor applies its change a second time.
const WriteTokenAttribute = "write_token"

// NewWriteToken is 96 random bits in 16 characters: small, since it stays on the item.
func NewWriteToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand's Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// WrittenBefore reports whether the item under key carries tok in WriteTokenAttribute:
// whether a conditional write with that token whose condition failed had been applied by
// its own earlier attempt. One strongly consistent read of that attribute alone.
func WrittenBefore(ctx context.Context, client *dynamodb.Client, table string, key Item, tok string) (bool, error) {
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key,
		ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String(WriteTokenAttribute)})
	if err != nil {
		return false, fmt.Errorf("read back a refused write: %w", err)
	}
	return tok != "" && GetString(out.Item, WriteTokenAttribute) == tok, nil
}
