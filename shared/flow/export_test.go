package flow

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// PutLegacyRun stores r as the store did before events had keys of their own: at its
// flow's id whatever the number of its event's runs, with no marker.
func PutLegacyRun(ctx context.Context, s *DynamoStore, r Run) error {
	it, err := runItem(r)
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it})
	return err
}
