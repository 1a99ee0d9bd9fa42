package dynamostore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"

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
	it, err := readBack(ctx, client, table, key)
	return Wrote(it, tok), err
}

// readBack reads the item under key after a refused write: its write token and the
// attributes also, strongly consistent. Nil when there is none.
func readBack(ctx context.Context, client *dynamodb.Client, table string, key Item, also ...string) (Item, error) {
	names := map[string]string{"#wt": WriteTokenAttribute}
	projection := "#wt"
	for i, a := range also {
		n := fmt.Sprintf("#a%d", i)
		names[n] = a
		projection += ", " + n
	}
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key,
		ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String(projection), ExpressionAttributeNames: names})
	if err != nil {
		return nil, fmt.Errorf("read back a refused write: %w", err)
	}
	return out.Item, nil
}

// PutOnce puts it (whose key is key) under the condition cond with a new write token, and
// reports whether another writer's item refused it. A refusal of the put's own first
// attempt, which the SDK sent again after its answer was lost, is not one: the put is done.
func PutOnce(ctx context.Context, client *dynamodb.Client, table string, key, it Item, cond string, values Item) (refused bool, err error) {
	by, err := PutOnceOr(ctx, client, table, key, it, cond, values)
	return by != nil, err
}

// PutOnceOr is PutOnce answering the item that refused the put with its attributes also
// (name a key attribute among them to tell an item without the others from none: an
// empty item is one gone by the read), from the read that told the refusal from the
// put's own first attempt, so a caller that wants them reads nothing more.
func PutOnceOr(ctx context.Context, client *dynamodb.Client, table string, key, it Item, cond string, values Item, also ...string) (refusedBy Item, err error) {
	tok := NewWriteToken()
	it[WriteTokenAttribute] = Str(tok)
	in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: it, ConditionExpression: aws.String(cond)}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	if _, err = client.PutItem(ctx, in); !IsConditionFailed(err) {
		return nil, err
	}
	have, err := readBack(ctx, client, table, key, also...)
	switch {
	case err != nil:
		return nil, err
	case Wrote(have, tok):
		return nil, nil
	case have == nil:
		return Item{}, nil
	}
	return have, nil
}

// withWriteToken is the update expression update (which begins with SET) also setting
// WriteTokenAttribute to tok, whose value it adds to values.
func withWriteToken(update, tok string, values Item) string {
	values[":wtok"] = Str(tok)
	return "SET " + WriteTokenAttribute + " = :wtok, " + strings.TrimPrefix(update, "SET ")
}

// UpdateOnce sends the conditional update in, whose update expression begins with SET,
// carrying write token tok (withWriteToken), and answers what it returned (in's
// ReturnValues). Refused by its condition, it reads the item back (the emulator returns
// none with the failure): notFound when there is none; the item, when it carries tok (this
// update, applied before its answer was lost and sent again by the SDK: the success it
// was); else conflict, another writer's change.
func UpdateOnce(ctx context.Context, client *dynamodb.Client, in *dynamodb.UpdateItemInput, tok string, notFound, conflict error) (Item, error) {
	if in.ExpressionAttributeValues == nil {
		in.ExpressionAttributeValues = Item{}
	}
	in.UpdateExpression = aws.String(withWriteToken(aws.ToString(in.UpdateExpression), tok, in.ExpressionAttributeValues))
	out, err := client.UpdateItem(ctx, in)
	if err == nil {
		return out.Attributes, nil
	}
	if !IsConditionFailed(err) {
		return nil, err
	}
	got, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: in.TableName, Key: in.Key, ConsistentRead: aws.Bool(true)})
	switch {
	case err != nil:
		return nil, fmt.Errorf("read back a refused update: %w", err)
	case got.Item == nil:
		return nil, notFound
	case Wrote(got.Item, tok):
		return got.Item, nil
	}
	return nil, conflict
}

// Wrote reports whether it carries tok: the conditional write that set tok was applied.
func Wrote(it Item, tok string) bool { return tok != "" && GetString(it, WriteTokenAttribute) == tok }
