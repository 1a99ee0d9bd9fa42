// Package dynamostore implements the service's stores on DynamoDB with single-item
// conditional writes (the local emulator has no transactions), and creates the tables the
// blueprint declares.
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

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

type item = map[string]types.AttributeValue

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// putOptional sets name to s unless s is empty (DynamoDB keys aside, empty strings are
// allowed, but absent reads better in the console and keeps items small).
func putOptional(it item, name, s string) {
	if s != "" {
		it[name] = str(s)
	}
}

func getString(it item, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func getInt(it item, name string) (int64, error) {
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
		if err := createTable(ctx, c, blueprint.PhysicalName(stage, t.Name), t); err != nil {
			return err
		}
	}
	return nil
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
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
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
