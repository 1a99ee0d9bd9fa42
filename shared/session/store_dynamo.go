package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

// DynamoStore is the Store on the embedded sessions table. One partition per tenant
// holds three kinds of item, told apart by the sort key "sk":
//
//	tok#<token sha256 hex>          a session (the service token's hash, never the token)
//	ctx#<session id>#<context id>   a module context, under its session so a teardown
//	                                finds them with one begins_with query and a context id
//	                                cannot be resolved under any other session
//	req#<webhook-id sha256 hex>     a host bootstrap's replay guard
//
// Each carries "expires_at" in epoch seconds, the table's TTL attribute and the reaper's
// condition. Reads that decide on access are strongly consistent, so a teardown takes
// effect at once.
type DynamoStore struct {
	client *dynamodb.Client
	table  string
}

var _ Store = (*DynamoStore)(nil)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

const (
	skToken   = "tok#"
	skContext = "ctx#"
	skRequest = "req#"
)

func contextSK(sessionID, contextID string) string { return skContext + sessionID + "#" + contextID }

// requestSK hashes the webhook-id: it is the host's text (up to 256 bytes of anything), and
// a fixed-length hex key keeps it out of key syntax.
func requestSK(requestID string) string {
	sum := sha256.Sum256([]byte(requestID))
	return skRequest + hex.EncodeToString(sum[:])
}

func sessionKey(tenantID, sk string) dynamostore.Item {
	return dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "sk": dynamostore.Str(sk)}
}

// putNew stores an item that must not exist yet. A put the SDK sent again after its first
// was applied is done (dynamostore.PutOnce): as ErrExists, the host's first bootstrap
// request would be answered request_replayed.
func (s *DynamoStore) putNew(ctx context.Context, it dynamostore.Item, what string) error {
	key := dynamostore.Item{"tenant_id": it["tenant_id"], "sk": it["sk"]}
	refused, err := dynamostore.PutOnce(ctx, s.client, s.table, key, it, "attribute_not_exists(sk)", nil)
	switch {
	case err != nil:
		return fmt.Errorf("put %s: %w", what, err)
	case refused:
		return ErrExists
	}
	return nil
}

func (s *DynamoStore) get(ctx context.Context, tenantID, sk, what string) (dynamostore.Item, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: sessionKey(tenantID, sk), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", what, err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// deleteIf deletes one item if cond holds; ok is false when it did not (someone else
// deleted it first, or it no longer qualifies).
func (s *DynamoStore) deleteIf(ctx context.Context, tenantID, sk, cond string, values dynamostore.Item) (ok bool, err error) {
	in := &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: sessionKey(tenantID, sk), ConditionExpression: aws.String(cond),
	}
	if len(values) > 0 {
		in.ExpressionAttributeValues = values
	}
	_, err = s.client.DeleteItem(ctx, in)
	switch {
	case dynamostore.IsConditionFailed(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("delete session item: %w", err)
	}
	return true, nil
}

func epoch(t time.Time) types.AttributeValue { return dynamostore.Num(t.Unix()) }

func getEpoch(it dynamostore.Item, name string) (time.Time, error) {
	n, err := dynamostore.GetInt(it, name)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(n, 0).UTC(), nil
}

// CreateSession implements Store.
func (s *DynamoStore) CreateSession(ctx context.Context, sess Session) error {
	it := sessionKey(sess.TenantID, skToken+sess.TokenHash)
	it["kind"] = dynamostore.Str("token")
	it["token_hash"] = dynamostore.Str(sess.TokenHash)
	it["session_id"] = dynamostore.Str(sess.ID)
	it["user_id"] = dynamostore.Str(sess.UserID)
	it["host_account_id"] = dynamostore.Str(sess.HostAccountID)
	it["roles"] = dynamostore.StrList(sess.Roles)
	if sess.Modules != nil {
		it["modules"] = dynamostore.StrList(sess.Modules)
	}
	it["issued_at"] = dynamostore.Str(dynamostore.FormatTime(sess.IssuedAt))
	it["expires_at"] = epoch(sess.ExpiresAt)
	return s.putNew(ctx, it, "session")
}

// SessionByTokenHash implements Store.
func (s *DynamoStore) SessionByTokenHash(ctx context.Context, tenantID, tokenHash string) (Session, error) {
	it, err := s.get(ctx, tenantID, skToken+tokenHash, "session")
	if err != nil {
		return Session{}, err
	}
	sess := Session{
		TenantID: dynamostore.GetString(it, "tenant_id"), ID: dynamostore.GetString(it, "session_id"), TokenHash: dynamostore.GetString(it, "token_hash"),
		UserID: dynamostore.GetString(it, "user_id"), HostAccountID: dynamostore.GetString(it, "host_account_id"),
	}
	sess.Roles = dynamostore.GetStrList(it, "roles")
	sess.Modules = dynamostore.GetStrList(it, "modules")
	if sess.IssuedAt, err = dynamostore.ParseTime(dynamostore.GetString(it, "issued_at")); err != nil {
		return Session{}, fmt.Errorf("session %s: issued_at: %w", sess.ID, err)
	}
	if sess.ExpiresAt, err = getEpoch(it, "expires_at"); err != nil {
		return Session{}, fmt.Errorf("session %s: expires_at: %w", sess.ID, err)
	}
	return sess, nil
}

// DeleteSession implements Store.
func (s *DynamoStore) DeleteSession(ctx context.Context, tenantID, tokenHash string) error {
	ok, err := s.deleteIf(ctx, tenantID, skToken+tokenHash, "attribute_exists(sk)", nil)
	if err == nil && !ok {
		return ErrNotFound
	}
	return err
}

// CreateContext implements Store.
func (s *DynamoStore) CreateContext(ctx context.Context, c EmbeddedContext) error {
	it := sessionKey(c.TenantID, contextSK(c.SessionID, c.ID))
	it["kind"] = dynamostore.Str("context")
	it["session_id"] = dynamostore.Str(c.SessionID)
	it["context_id"] = dynamostore.Str(c.ID)
	it["module"] = dynamostore.Str(c.Module)
	it["issued_at"] = dynamostore.Str(dynamostore.FormatTime(c.IssuedAt))
	it["expires_at"] = epoch(c.ExpiresAt)
	return s.putNew(ctx, it, "context")
}

// Context implements Store.
func (s *DynamoStore) Context(ctx context.Context, tenantID, sessionID, contextID string) (EmbeddedContext, error) {
	it, err := s.get(ctx, tenantID, contextSK(sessionID, contextID), "context")
	if err != nil {
		return EmbeddedContext{}, err
	}
	c := EmbeddedContext{TenantID: dynamostore.GetString(it, "tenant_id"), SessionID: dynamostore.GetString(it, "session_id"),
		ID: dynamostore.GetString(it, "context_id"), Module: dynamostore.GetString(it, "module")}
	if c.IssuedAt, err = dynamostore.ParseTime(dynamostore.GetString(it, "issued_at")); err != nil {
		return EmbeddedContext{}, fmt.Errorf("context %s: issued_at: %w", c.ID, err)
	}
	if c.ExpiresAt, err = getEpoch(it, "expires_at"); err != nil {
		return EmbeddedContext{}, fmt.Errorf("context %s: expires_at: %w", c.ID, err)
	}
	return c, nil
}

// eachKey calls fn with the sort key of every item of the tenant's partition that in
// selects, page by page.
func (s *DynamoStore) eachKey(ctx context.Context, in *dynamodb.QueryInput, fn func(sk string) error) error {
	in.TableName = aws.String(s.table)
	in.ProjectionExpression = aws.String("sk")
	in.ConsistentRead = aws.Bool(true)
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("query sessions: %w", err)
		}
		for _, it := range out.Items {
			if err := fn(dynamostore.GetString(it, "sk")); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// DeleteContexts implements Store.
func (s *DynamoStore) DeleteContexts(ctx context.Context, tenantID, sessionID string) (int, error) {
	n := 0
	err := s.eachKey(ctx, &dynamodb.QueryInput{
		KeyConditionExpression: aws.String("tenant_id = :t AND begins_with(sk, :p)"),
		ExpressionAttributeValues: dynamostore.Item{
			":t": dynamostore.Str(tenantID), ":p": dynamostore.Str(contextSK(sessionID, "")),
		},
	}, func(sk string) error {
		ok, err := s.deleteIf(ctx, tenantID, sk, "attribute_exists(sk)", nil)
		if ok {
			n++
		}
		return err
	})
	return n, err
}

// ClaimRequest implements Store.
func (s *DynamoStore) ClaimRequest(ctx context.Context, tenantID, requestID string, expiresAt time.Time) error {
	it := sessionKey(tenantID, requestSK(requestID))
	it["kind"] = dynamostore.Str("request")
	it["expires_at"] = epoch(expiresAt)
	return s.putNew(ctx, it, "bootstrap request")
}

// ReleaseRequest implements Store.
func (s *DynamoStore) ReleaseRequest(ctx context.Context, tenantID, requestID string) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: sessionKey(tenantID, requestSK(requestID)),
	})
	if err != nil {
		return fmt.Errorf("delete bootstrap request: %w", err)
	}
	return nil
}

// DeleteExpired implements Store. The query's filter only saves deletes that would
// fail; the delete's own condition is what makes overlapping runs count each item once.
func (s *DynamoStore) DeleteExpired(ctx context.Context, tenantID string, now time.Time) (Reaped, error) {
	var r Reaped
	cut := dynamostore.Item{":now": epoch(now)}
	err := s.eachKey(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("tenant_id = :t"),
		FilterExpression:          aws.String("expires_at < :now"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID), ":now": cut[":now"]},
	}, func(sk string) error {
		ok, err := s.deleteIf(ctx, tenantID, sk, "expires_at < :now", cut)
		if !ok {
			return err
		}
		switch {
		case strings.HasPrefix(sk, skToken):
			r.Tokens++
		case strings.HasPrefix(sk, skContext):
			r.Contexts++
		case strings.HasPrefix(sk, skRequest):
			r.Requests++
		}
		return nil
	})
	return r, err
}
