package flow

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/dynamostore"
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

// RunExpiresAt is when the table's TTL may delete the run stored under id.
func RunExpiresAt(ctx context.Context, s *DynamoStore, tenantID, id string) (time.Time, error) {
	it, err := s.get(ctx, tenantID, prefixRun+id)
	if err != nil {
		return time.Time{}, err
	}
	n, err := dynamostore.GetInt(it, "expires_at")
	return time.Unix(n, 0).UTC(), err
}
