package flow

// The vendors' metadata cache lives in the flows table under "meta#" sort keys of the
// tenant's partition: one item per system and entity, read by its key, removed by the
// table's TTL (expires_at) after MetadataTTL; the read checks the expiry itself.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

var _ MetadataCache = (*DynamoStore)(nil)

func metaKey(system connector.System, entity string) string {
	return "meta#" + string(system) + "#" + b64(entity)
}

// CachedMetadata implements MetadataCache.
func (s *DynamoStore) CachedMetadata(ctx context.Context, tenantID string, system connector.System, entity string, now time.Time) (Metadata, error) {
	it, err := s.get(ctx, tenantID, metaKey(system, entity))
	if err != nil {
		return Metadata{}, err
	}
	var m Metadata
	if err := json.Unmarshal([]byte(dynamostore.GetString(it, "doc")), &m); err != nil {
		return Metadata{}, err
	}
	if !now.Before(m.ExpiresAt) {
		return Metadata{}, ErrNotFound
	}
	return m, nil
}

// PutMetadata implements MetadataCache.
func (s *DynamoStore) PutMetadata(ctx context.Context, tenantID string, m Metadata) error {
	doc, err := json.Marshal(m)
	if err != nil {
		return err
	}
	it := s.key(tenantID, metaKey(m.System, m.Entity))
	it["doc"] = dynamostore.Str(string(doc))
	it["expires_at"] = dynamostore.Num(m.ExpiresAt.Unix())
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it})
	return err
}
