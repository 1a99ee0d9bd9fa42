package tenant

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// projectedAttrs are the attributes a reader serving purposes fetches: the plain ones, each
// purpose's secret list, and the connector map (base URLs beside sealed tokens) only for
// PurposeConnectors.
func projectedAttrs(purposes []Purpose) []string {
	attrs := slices.Clone(blueprint.TenantPlainAttributes)
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

// projection is the ProjectionExpression fetching attrs only, and its names (they go
// through placeholders: some, like "version", are reserved words).
func projection(attrs []string) (*string, map[string]string) {
	names := make(map[string]string, len(attrs))
	refs := make([]string, len(attrs))
	for i, a := range attrs {
		ref := "#a" + strconv.Itoa(i)
		names[ref], refs[i] = a, ref
	}
	return aws.String(strings.Join(refs, ", ")), names
}

// ReaderFor reads the tenant table for a function serving purposes: its reads fetch the
// settings and the secrets of those purposes only (none: settings alone), so another
// purpose's sealed secrets never reach the function (whose key grant could not open them
// either). It cannot write: a whole-item write from a partial read would drop what it did
// not read.
func (s *DynamoStore) ReaderFor(purposes ...Purpose) *Projected {
	return &Projected{s: s, attrs: projectedAttrs(purposes)}
}

// Projected is a read-only view of the tenant table fetching some attributes only.
type Projected struct {
	s     *DynamoStore
	attrs []string
}

// Get implements Reader.
func (r *Projected) Get(ctx context.Context, id string) (Config, error) {
	expr, names := projection(r.attrs)
	out, err := r.s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(r.s.table), Key: dynamostore.Item{"tenant_id": dynamostore.Str(id)},
		ConsistentRead: aws.Bool(true), ProjectionExpression: expr, ExpressionAttributeNames: names,
	})
	if err != nil {
		return Config{}, fmt.Errorf("get tenant %s: %w", id, err)
	}
	if out.Item == nil {
		return Config{}, ErrNotFound
	}
	return tenantFrom(out.Item)
}

// List lists every tenant as Store.List does, fetching the view's attributes only.
func (r *Projected) List(ctx context.Context) ([]Config, error) {
	expr, names := projection(r.attrs)
	return r.s.scan(ctx, &dynamodb.ScanInput{TableName: aws.String(r.s.table), ConsistentRead: aws.Bool(true),
		ProjectionExpression: expr, ExpressionAttributeNames: names})
}
