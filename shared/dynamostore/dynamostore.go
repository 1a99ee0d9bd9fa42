// Package dynamostore is the platform's DynamoDB adapter, the plumbing every feature's
// store uses: the attribute helpers, the stored time layout, the conditional-write check,
// paged reads, list cursors, and the creation of the blueprint's tables. It holds no
// feature's storage: each feature maps its own table in its package's store_dynamo.go,
// next to the rules it serves (functions/architecture_test.go enforces it). Writes are
// single-item and conditional (the local emulator has no transactions).
package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// timeLayout is fixed-width so that stored times sort as strings.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime is the stored form of a time: fixed-width UTC, so it sorts as a string.
func FormatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// ParseTime reads FormatTime's form; empty is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

// IsConditionFailed says whether a write's condition did not hold.
func IsConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// Item is one DynamoDB item.
type Item = map[string]types.AttributeValue

// Str is a string attribute.
func Str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// Num is a number attribute.
func Num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// PutOptional sets name to s unless s is empty (DynamoDB keys aside, empty strings are
// allowed, but absent reads better in the console and keeps items small).
func PutOptional(it Item, name, s string) {
	if s != "" {
		it[name] = Str(s)
	}
}

// GetString reads a string attribute; absent or of another type reads "".
func GetString(it Item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// StrList is a list of string attributes.
func StrList(ss []string) types.AttributeValue {
	l := make([]types.AttributeValue, len(ss))
	for i, s := range ss {
		l[i] = Str(s)
	}
	return &types.AttributeValueMemberL{Value: l}
}

// GetStrList reads a list attribute's strings; absent reads nil, other elements are skipped.
func GetStrList(it Item, name string) []string {
	l, ok := it[name].(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l.Value))
	for _, v := range l.Value {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			out = append(out, s.Value)
		}
	}
	return out
}

// GetInt reads a number attribute; absent reads 0.
func GetInt(it Item, name string) (int64, error) {
	v, ok := it[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v.Value, 10, 64)
}

// CreateTables creates every blueprint table for stage, skipping tables that exist. It is
// for the local stack and tests; in AWS the CDK stack owns the tables.
func CreateTables(ctx context.Context, c *dynamodb.Client, stage string) error {
	for _, t := range blueprint.Tables {
		if err := CreateTable(ctx, c, stage, t); err != nil {
			return err
		}
	}
	return nil
}

// CreateTable creates one blueprint table for stage, unless it exists: for a test that
// needs one table of the set.
func CreateTable(ctx context.Context, c *dynamodb.Client, stage string, t blueprint.Table) error {
	return createTable(ctx, c, blueprint.PhysicalName(stage, t.Name), t)
}

func keySchema(pk blueprint.Key, sk *blueprint.Key) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk.Name), KeyType: types.KeyTypeHash}}
	if sk != nil {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

func createTable(ctx context.Context, c *dynamodb.Client, name string, t blueprint.Table) error {
	attrs := map[string]blueprint.AttrType{}
	addAttr := func(k *blueprint.Key) {
		if k != nil {
			attrs[k.Name] = k.Type
		}
	}
	addAttr(&t.PartitionKey)
	addAttr(t.SortKey)
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(t.PartitionKey, t.SortKey),
	}
	for _, ix := range t.Indexes {
		addAttr(&ix.PartitionKey)
		addAttr(ix.SortKey)
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.PartitionKey, ix.SortKey),
			Projection: projection(ix.Projection),
		})
	}
	for n, typ := range attrs {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(n), AttributeType: types.ScalarAttributeType(typ),
		})
	}
	_, err := c.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	return waitActive(ctx, c, name)
}

// waitActive polls until the table is ACTIVE. The SDK's waiter sleeps at least 20 s between
// polls, far longer than the emulator (or a small on-demand table) needs.
func waitActive(ctx context.Context, c *dynamodb.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("table %s not active: %w (last error: %v)", name, ctx.Err(), err)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// QueryUpTo runs in page after page until limit items are decoded or the query ends: the
// read of a small set that a filter narrows (the applying rows of a tenant whose lease
// expired).
func QueryUpTo[T any](ctx context.Context, client *dynamodb.Client, in *dynamodb.QueryInput, limit int, decode func(Item) (T, error)) ([]T, error) {
	var out []T
	p := dynamodb.NewQueryPaginator(client, in)
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			v, err := decode(it)
			if err != nil {
				return nil, err
			}
			if out = append(out, v); len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// projection is the blueprint's projection of an index as CreateTable takes it.
func projection(p blueprint.Projection) *types.Projection {
	out := &types.Projection{ProjectionType: types.ProjectionType(p.Type())}
	if out.ProjectionType == types.ProjectionTypeInclude {
		out.NonKeyAttributes = append([]string(nil), p.Include...)
	}
	return out
}
