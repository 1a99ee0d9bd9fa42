package tenant

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

// plainAttrs are a tenant item's attributes that hold no secret: every reader gets them.
var plainAttrs = []string{"tenant_id", "settings", "created_at", "updated_at", "version"}

// projectedAttrs are the attributes a reader serving purposes fetches: the plain ones, each
// purpose's secret list, and the connector map (base URLs beside sealed tokens) only for
// PurposeConnectors.
func projectedAttrs(purposes []Purpose) []string {
	attrs := slices.Clone(plainAttrs)
	for _, p := range Purposes {
		if slices.Contains(purposes, p) {
			attrs = append(attrs, secretsAttr[p])
		}
	}
	if slices.Contains(purposes, PurposeConnectors) {
		attrs = append(attrs, "connectors")
	}
	return attrs
}

// projectionInput is the GetItem of tenant id that fetches attrs only (names go through
// placeholders: some, like "version", are reserved words).
func projectionInput(table, id string, attrs []string) *dynamodb.GetItemInput {
	names := make(map[string]string, len(attrs))
	refs := make([]string, len(attrs))
	for i, a := range attrs {
		ref := "#a" + strconv.Itoa(i)
		names[ref], refs[i] = a, ref
	}
	return &dynamodb.GetItemInput{
		TableName:                aws.String(table),
		Key:                      dynamostore.Item{"tenant_id": dynamostore.Str(id)},
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String(strings.Join(refs, ", ")),
		ExpressionAttributeNames: names,
	}
}

// ReaderFor is a Reader of the tenant table for a function serving purposes: its reads
// fetch the settings and the secrets of those purposes only, so another purpose's sealed
// secrets never reach the function (whose key grant could not open them either). It
// cannot write: a whole-item write from a partial read would drop what it did not read.
func (s *DynamoStore) ReaderFor(purposes ...Purpose) Reader {
	return projectedReader{s: s, attrs: projectedAttrs(purposes)}
}

type projectedReader struct {
	s     *DynamoStore
	attrs []string
}

// Get implements Reader.
func (r projectedReader) Get(ctx context.Context, id string) (Config, error) {
	out, err := r.s.client.GetItem(ctx, projectionInput(r.s.table, id, r.attrs))
	if err != nil {
		return Config{}, fmt.Errorf("get tenant %s: %w", id, err)
	}
	if out.Item == nil {
		return Config{}, ErrNotFound
	}
	return tenantFrom(out.Item)
}
