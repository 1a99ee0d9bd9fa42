package tenantrun

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// JobsPartition is the partition key of the jobs' memories: no tenant id starts with "~",
// so no tenant's query or export ever meets them.
const JobsPartition = "~jobs"

// Dynamo is a job's Memory kept as one item of a table the job already writes (the
// partition JobsPartition, the job's name as sort key), so it needs no grant of its own.
type Dynamo struct {
	DB *dynamodb.Client
	// Table is the table's physical name; Keys its blueprint, for the key attributes.
	Table string
	Keys  blueprint.Table
	Job   string
}

func (d Dynamo) key() dynamostore.Item {
	it := dynamostore.Item{d.Keys.PartitionKey.Name: dynamostore.Str(JobsPartition)}
	if d.Keys.SortKey != nil {
		it[d.Keys.SortKey.Name] = dynamostore.Str(d.Job)
	}
	return it
}

// Late reads the job's item; none yet reads as nobody late.
func (d Dynamo) Late(ctx context.Context) ([]string, error) {
	if d.Keys.SortKey == nil {
		return nil, fmt.Errorf("job memory %s: table %s has no sort key", d.Job, d.Keys.Name)
	}
	out, err := d.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(d.Table), Key: d.key(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("job memory %s: %w", d.Job, err)
	}
	return dynamostore.GetStrList(out.Item, "late"), nil
}

// SetLate writes the job's item whole; of two overlapping runs the last one's memory stands,
// which costs at most a tenant's place in one run's order.
func (d Dynamo) SetLate(ctx context.Context, ids []string) error {
	if d.Keys.SortKey == nil {
		return fmt.Errorf("job memory %s: table %s has no sort key", d.Job, d.Keys.Name)
	}
	it := d.key()
	it["late"] = dynamostore.StrList(ids)
	it["updated_at"] = dynamostore.Str(dynamostore.FormatTime(time.Now()))
	if _, err := d.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.Table), Item: it}); err != nil {
		return fmt.Errorf("job memory %s: %w", d.Job, err)
	}
	return nil
}
