package dynamo

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// rawRows is a claim store on an emulator's table with the stored items at hand, for the
// tests of how a row is stored (its attributes, and rows as written before).
type rawRows struct {
	*DynamoClaims
	t *testing.T
}

func newRawRows(t *testing.T, e emutest.Emulator) rawRows {
	db, tables := e.Tables(t)
	return rawRows{DynamoClaims: NewDynamoClaims(db, tables(blueprint.TableProcessed)), t: t}
}

// item is the stored row of tenant t1's claim id, read consistently.
func (r rawRows) item(id string) dynamostore.Item {
	r.t.Helper()
	out, err := r.client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(r.table),
		Key: r.key("t1", id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		r.t.Fatal(err)
	}
	return out.Item
}

// put stores it as it is, as an older version of the service would have.
func (r rawRows) put(it dynamostore.Item) {
	r.t.Helper()
	if _, err := r.client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: it}); err != nil {
		r.t.Fatal(err)
	}
}
