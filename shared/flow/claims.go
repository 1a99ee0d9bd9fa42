package flow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// WebhookClaims keeps the webhook-ids a tenant's sources have used: Standard Webhooks
// makes a webhook-id one message's, so it is accepted once per tenant, whichever source
// path it arrives on.
type WebhookClaims interface {
	// ClaimWebhook records that webhookID carried event eventID of system. A webhook-id
	// claimed before for the same system and event (the sender redelivering it) is no
	// error: the event's own dedupe answers it. Claimed for anything else, it returns
	// ErrReplayed and records nothing.
	ClaimWebhook(ctx context.Context, tenantID, webhookID string, system connector.System, eventID string, now time.Time) error
}

// EventMessageID is the webhook-id docs/flow-sources.md tells a relay to derive for event
// eventID of system: "msg_" and the first 32 hex digits of SHA-256(system NUL eventId).
// Derived from the event, it is the same on every retry of that event, which Standard
// Webhooks makes a redelivery of one message.
func EventMessageID(system connector.System, eventID string) string {
	sum := sha256.Sum256([]byte(string(system) + "\x00" + eventID))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// ErrReplayed is a webhook-id already used by another message of the tenant.
var ErrReplayed = errors.New("flow: webhook-id already used by another message")

// ClaimWindow is how long a webhook-id stays claimed. A captured request verifies only
// within the signature's timestamp tolerance (5 minutes either way), so a day outlasts
// any replay of it, and covers a sender's redeliveries of the same message.
const ClaimWindow = 24 * time.Hour

const prefixWebhook = "whid#"

// webhookSK hashes the webhook-id: it is the sender's text (up to 256 bytes of anything),
// and a fixed-length hex key keeps it out of key syntax.
func webhookSK(webhookID string) string {
	sum := sha256.Sum256([]byte(webhookID))
	return prefixWebhook + hex.EncodeToString(sum[:])
}

var _ WebhookClaims = (*DynamoStore)(nil)

// ClaimWebhook implements WebhookClaims with one conditional put on the flows table. An
// item past its expiry that DynamoDB's TTL has not removed yet counts as absent.
func (s *DynamoStore) ClaimWebhook(ctx context.Context, tenantID, webhookID string, system connector.System, eventID string, now time.Time) error {
	sk := webhookSK(webhookID)
	it := s.key(tenantID, sk)
	it["system"] = dynamostore.Str(string(system))
	it["event_id"] = dynamostore.Str(eventID)
	it["expires_at"] = dynamostore.Num(now.Add(ClaimWindow).Unix())
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it,
		ConditionExpression:       aws.String("attribute_not_exists(sk) OR expires_at <= :now"),
		ExpressionAttributeValues: dynamostore.Item{":now": dynamostore.Num(now.Unix())}})
	if !dynamostore.IsConditionFailed(err) {
		if err != nil {
			return fmt.Errorf("claim webhook-id: %w", err)
		}
		return nil
	}
	prev, err := s.get(ctx, tenantID, sk)
	switch {
	case errors.Is(err, ErrNotFound):
		// Expired and removed between the put and the read: nothing holds the id now.
		return s.ClaimWebhook(ctx, tenantID, webhookID, system, eventID, now)
	case err != nil:
		return fmt.Errorf("read webhook-id claim: %w", err)
	case dynamostore.GetString(prev, "system") == string(system) && dynamostore.GetString(prev, "event_id") == eventID:
		return nil
	}
	return ErrReplayed
}
