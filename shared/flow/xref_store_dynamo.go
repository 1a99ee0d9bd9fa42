package flow

// The cross-reference lives in the flows table, under "xref#" sort keys of the tenant's
// partition, rather than in a table of its own: every access is by the tenant and one
// record (a point read, a conditional put, a begins_with query over one record's
// entries), which is exactly the flows table's key; no index is needed; and it shares
// the table's grants, backups and removal with the runs that write it. Entries carry no
// expires_at: a link lasts as long as the records it links.
//
// Key: xref#{system}#{entity}#{id}#{targetSystem}#{targetEntity}, entity and ids in
// unpadded base64url so a '#' in an id cannot shift the fields.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/dynamostore"
)

var _ XRefStore = (*DynamoStore)(nil)

const prefixXRef = "xref#"

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// xrefPrefix is the sort key prefix of a record's entries.
func xrefPrefix(src Ref) string {
	return prefixXRef + string(src.System) + "#" + b64(src.Entity) + "#" + b64(src.ID) + "#"
}

func xrefKey(src Ref, target Endpoint) string {
	return xrefPrefix(src) + string(target.System) + "#" + b64(target.Entity)
}

func (s *DynamoStore) xrefItem(tenantID string, e XRef) (dynamostore.Item, error) {
	doc, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	it := s.key(tenantID, xrefKey(e.Source, e.Target.endpoint()))
	it["doc"] = dynamostore.Str(string(doc))
	it["xref_state"] = dynamostore.Str(string(e.State))
	it["claimed_by"] = dynamostore.Str(e.ClaimedBy)
	return it, nil
}

func decodeXRef(it dynamostore.Item) (XRef, error) {
	var e XRef
	err := json.Unmarshal([]byte(dynamostore.GetString(it, "doc")), &e)
	return e, err
}

// XRef implements XRefStore.
func (s *DynamoStore) XRef(ctx context.Context, tenantID string, src Ref, target Endpoint) (XRef, error) {
	it, err := s.get(ctx, tenantID, xrefKey(src, target))
	if err != nil {
		return XRef{}, err
	}
	return decodeXRef(it)
}

// ClaimXRef implements XRefStore.
func (s *DynamoStore) ClaimXRef(ctx context.Context, tenantID string, e XRef) (XRef, error) {
	it, err := s.xrefItem(tenantID, e)
	if err != nil {
		return XRef{}, err
	}
	// Twice: an entry released between the put and the read is claimable again.
	for range 2 {
		_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it,
			ConditionExpression: aws.String("attribute_not_exists(sk)")})
		if !dynamostore.IsConditionFailed(err) {
			return e, err
		}
		have, err := s.XRef(ctx, tenantID, e.Source, e.Target.endpoint())
		if !errors.Is(err, ErrNotFound) {
			if err != nil {
				return XRef{}, err
			}
			return have, ErrTaken
		}
	}
	return XRef{}, fmt.Errorf("claim %s: the entry kept changing", xrefKey(e.Source, e.Target.endpoint()))
}

// UpdateXRef implements XRefStore.
func (s *DynamoStore) UpdateXRef(ctx context.Context, tenantID string, e XRef, claimedBy string) error {
	return s.putPending(ctx, tenantID, e, claimedBy)
}

// putPending puts e in place of the pending entry claimed by claimedBy.
func (s *DynamoStore) putPending(ctx context.Context, tenantID string, e XRef, claimedBy string) error {
	it, err := s.xrefItem(tenantID, e)
	if err != nil {
		return err
	}
	return s.putOnce(ctx, it, "xref_state = :p AND claimed_by = :c",
		dynamostore.Item{":p": dynamostore.Str(string(XRefPending)), ":c": dynamostore.Str(claimedBy)})
}

// putOnce puts it under its condition and reports a refusal as ErrTaken; a refusal of
// the put's own first attempt is none (dynamostore.PutOnce): as ErrTaken, an admin's fix
// was answered 409 and its new reverse entry dropped while the stale one stayed.
func (s *DynamoStore) putOnce(ctx context.Context, it dynamostore.Item, cond string, values dynamostore.Item) error {
	key := dynamostore.Item{"tenant_id": it["tenant_id"], "sk": it["sk"]}
	refused, err := dynamostore.PutOnce(ctx, s.client, s.table, key, it, cond, values)
	if err == nil && refused {
		return ErrTaken
	}
	return err
}

// LinkXRef implements XRefStore: three single-item writes, in the order that keeps a
// linked entry's reverse in place (a crash after the reverse leaves the claim pending,
// and its holder links again).
func (s *DynamoStore) LinkXRef(ctx context.Context, tenantID string, e XRef) error {
	have, err := s.XRef(ctx, tenantID, e.Source, e.Target.endpoint())
	switch {
	case errors.Is(err, ErrNotFound):
		return ErrTaken
	case err != nil:
		return err
	case have.State != XRefPending || have.ClaimedBy != e.LinkedBy:
		return ErrTaken
	}
	rev, err := s.xrefItem(tenantID, e.reverse())
	if err != nil {
		return err
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: rev,
		ConditionExpression:       aws.String("attribute_not_exists(sk) OR xref_state = :p"),
		ExpressionAttributeValues: dynamostore.Item{":p": dynamostore.Str(string(XRefPending))}})
	if err != nil && !dynamostore.IsConditionFailed(err) {
		return fmt.Errorf("reverse entry: %w", err)
	}
	return s.putPending(ctx, tenantID, e, e.LinkedBy)
}

// ReleaseXRef implements XRefStore.
func (s *DynamoStore) ReleaseXRef(ctx context.Context, tenantID string, src Ref, target Endpoint, runID string) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table),
		Key:                 s.key(tenantID, xrefKey(src, target)),
		ConditionExpression: aws.String("xref_state = :p AND claimed_by = :c"),
		ExpressionAttributeValues: dynamostore.Item{":p": dynamostore.Str(string(XRefPending)),
			":c": dynamostore.Str(runID)}})
	if dynamostore.IsConditionFailed(err) {
		return nil
	}
	return err
}

// maxXRefsPerRecord bounds a record's entries read at once: one per target entity.
const maxXRefsPerRecord = 100

// XRefsOf implements XRefStore.
func (s *DynamoStore) XRefsOf(ctx context.Context, tenantID string, src Ref) ([]XRef, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("tenant_id = :t AND begins_with(sk, :p)"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID),
			":p": dynamostore.Str(xrefPrefix(src))},
		ConsistentRead: aws.Bool(true),
	}
	out, err := dynamostore.QueryUpTo(ctx, s.client, in, maxXRefsPerRecord, decodeXRef)
	if out == nil && err == nil {
		out = []XRef{}
	}
	return out, err
}

// SwapXRef implements XRefStore: one put or delete, conditional on the stored document
// being prev's (the document is the entry's JSON, so an entry read and encoded again
// compares equal) or on there being none.
func (s *DynamoStore) SwapXRef(ctx context.Context, tenantID string, prev, next *XRef) error {
	at := prev
	if at == nil {
		at = next
	}
	cond, values := "attribute_not_exists(sk)", dynamostore.Item(nil)
	if prev != nil {
		doc, err := json.Marshal(*prev)
		if err != nil {
			return err
		}
		cond, values = "doc = :d", dynamostore.Item{":d": dynamostore.Str(string(doc))}
	}
	if next != nil {
		it, err := s.xrefItem(tenantID, *next)
		if err != nil {
			return err
		}
		return s.putOnce(ctx, it, cond, values)
	}
	sk := xrefKey(at.Source, at.Target.endpoint())
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table),
		Key: s.key(tenantID, sk), ConditionExpression: aws.String(cond), ExpressionAttributeValues: values})
	if dynamostore.IsConditionFailed(err) {
		// A delete sent again after its first was applied finds nothing: done.
		if _, gerr := s.get(ctx, tenantID, sk); errors.Is(gerr, ErrNotFound) {
			return nil
		}
		return ErrTaken
	}
	return err
}
