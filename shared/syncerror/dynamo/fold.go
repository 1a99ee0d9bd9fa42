package dynamo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// signatureKey is the item holding a signature's generation; like the watermark it has
// none of the index attributes, and its id is no claim id, so no route serves it.
func (s *DynamoClaims) signatureKey(tenantID, signature string) dynamostore.Item {
	return s.key(tenantID, "~sig#"+signature)
}

// SignatureState implements FoldStore.
func (s *DynamoClaims) SignatureState(ctx context.Context, tenantID, signature string) (syncerror.SignatureState, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: s.signatureKey(tenantID, signature), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return syncerror.SignatureState{}, fmt.Errorf("signature of %s: %w", tenantID, err)
	}
	var st syncerror.SignatureState
	if _, ok := out.Item["generation"]; ok {
		n, err := dynamostore.GetInt(out.Item, "generation")
		if err != nil {
			return st, fmt.Errorf("signature of %s: generation: %w", tenantID, err)
		}
		st.Generation = int(n)
	}
	if ss, ok := out.Item["closed_keys"].(*types.AttributeValueMemberSS); ok {
		st.ClosedKeys = ss.Value
	}
	return st, nil
}

// AdvanceSignature implements FoldStore.
func (s *DynamoClaims) AdvanceSignature(ctx context.Context, tenantID, signature string, gen int, keys []string) error {
	values := dynamostore.Item{":next": dynamostore.Num(int64(gen + 1))}
	cond := "attribute_not_exists(generation)"
	if gen > 0 {
		cond = "generation = :gen"
		values[":gen"] = dynamostore.Num(int64(gen))
	}
	update := "SET generation = :next REMOVE closed_keys"
	if len(keys) > 0 {
		update = "SET generation = :next, closed_keys = :keys"
		values[":keys"] = &types.AttributeValueMemberSS{Value: keys}
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table),
		Key: s.signatureKey(tenantID, signature), ConditionExpression: aws.String(cond),
		UpdateExpression: aws.String(update), ExpressionAttributeValues: values})
	if dynamostore.IsConditionFailed(err) {
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("advance signature of %s: %w", tenantID, err)
	}
	return nil
}

// foldCounted are the attributes a fold changes on an existing row; every other
// attribute of the claim is written only when the row is created (if_not_exists).
var foldCounted = []string{"tenant_id", "id", "occurrences", "last_seen", "error_keys"}

// Fold implements FoldStore with one conditional update: create, or count an occurrence.
func (s *DynamoClaims) Fold(ctx context.Context, c syncerror.Claim, errorKey string) (syncerror.FoldResult, syncerror.Claim, error) {
	res, row, err := s.foldWrite(ctx, c, errorKey, true)
	if err != nil || res != syncerror.FoldClosed || row.Status.Closed() || row.Retry.Occurrences < syncerror.MaxErrorKeys {
		return res, row, err
	}
	// The row keeps MaxErrorKeys keys already: count the occurrence without its key.
	return s.foldWrite(ctx, c, errorKey, false)
}

func (s *DynamoClaims) foldWrite(ctx context.Context, c syncerror.Claim, errorKey string, keep bool) (syncerror.FoldResult, syncerror.Claim, error) {
	it := claimItem(c)
	names := map[string]string{"#status": "status"}
	values := dynamostore.Item{
		":one":      dynamostore.Num(1),
		":seen":     dynamostore.Str(dynamostore.FormatTime(c.ClaimedAt)),
		":approved": dynamostore.Str(string(syncerror.StatusApproved)),
		":rejected": dynamostore.Str(string(syncerror.StatusRejected)),
		":resolved": dynamostore.Str(string(syncerror.StatusResolved)),
		":reverted": dynamostore.Str(string(syncerror.StatusReverted)),
	}
	set := []string{"last_seen = :seen"}
	for _, name := range slices.Sorted(maps.Keys(it)) {
		if slices.Contains(foldCounted, name) {
			continue
		}
		n := "#a" + strconv.Itoa(len(names))
		names[n], values[":"+n[1:]] = name, it[name]
		set = append(set, n+" = if_not_exists("+n+", :"+n[1:]+")")
	}
	update := "SET " + strings.Join(set, ", ") + " ADD occurrences :one"
	// One level of parentheses: dynalite's expression parser backtracks on nested ones
	// (diagnosis.go).
	open := "NOT #status IN (:approved, :rejected, :resolved, :reverted)"
	cond := "attribute_not_exists(id) OR (" + open + ")"
	if keep {
		values[":key"] = dynamostore.Str(errorKey)
		values[":keys"] = &types.AttributeValueMemberSS{Value: []string{errorKey}}
		values[":max"] = dynamostore.Num(syncerror.MaxErrorKeys)
		update += ", error_keys :keys"
		fresh := open + " AND NOT contains(error_keys, :key)"
		cond = "attribute_not_exists(id) OR (" + fresh + " AND attribute_not_exists(occurrences)) OR (" + fresh + " AND occurrences < :max)"
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: s.key(c.TenantID, c.ID),
		ConditionExpression: aws.String(cond), UpdateExpression: aws.String(update),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllOld,
	})
	if dynamostore.IsConditionFailed(err) {
		row, gerr := s.Get(ctx, c.TenantID, c.ID)
		if gerr != nil {
			return 0, syncerror.Claim{}, gerr
		}
		if slices.Contains(row.Retry.ErrorKeys, errorKey) {
			return syncerror.FoldDuplicate, row, nil
		}
		return syncerror.FoldClosed, row, nil
	}
	if err != nil {
		return 0, syncerror.Claim{}, fmt.Errorf("fold %s/%s: %w", c.TenantID, c.ID, err)
	}
	if len(out.Attributes) == 0 {
		return syncerror.FoldCreated, c, nil
	}
	row, err := claimFrom(out.Attributes)
	if err != nil {
		return 0, syncerror.Claim{}, err
	}
	return syncerror.FoldOccurrence, syncerror.Occurred(row, c, errorKey, keep), nil
}

func (s *DynamoClaims) errorKeyItem(tenantID, errorKey string) dynamostore.Item {
	return s.key(tenantID, "~eid#"+errorKey)
}

// webhookItem is the item holding what a webhook-id first carried. The id is the sender's
// text (up to 256 bytes of anything), so it is hashed out of key syntax.
func (s *DynamoClaims) webhookItem(tenantID, webhookID string) dynamostore.Item {
	sum := sha256.Sum256([]byte(webhookID))
	return s.key(tenantID, "~whid#"+hex.EncodeToString(sum[:]))
}

// ClaimErrorKey implements FoldStore: one conditional PutItem. A refused put returns the
// item with the refusal on DynamoDB; an emulator without
// ReturnValuesOnConditionCheckFailure (dynalite) does not, so it is read then.
func (s *DynamoClaims) ClaimErrorKey(ctx context.Context, tenantID, errorKey, signature string) (syncerror.ErrorRecord, bool, error) {
	it := s.errorKeyItem(tenantID, errorKey)
	it["signature"] = dynamostore.Str(signature)
	old, ok, err := s.putIfAbsent(ctx, it, "attribute_not_exists(id)", nil, nil)
	if err != nil || ok {
		return syncerror.ErrorRecord{Signature: signature}, ok, err
	}
	// row_id: a record written before records kept the signature.
	return syncerror.ErrorRecord{Signature: dynamostore.GetString(old, "signature"), RowID: dynamostore.GetString(old, "row_id")}, false, nil
}

// RecordWebhookID implements FoldStore: one conditional PutItem. The item carries the
// table's TTL attribute (expires_at, epoch seconds) so DynamoDB deletes it after
// WebhookIDTTL (before, every id ever posted stayed forever); an expired item not yet
// deleted counts as absent.
func (s *DynamoClaims) RecordWebhookID(ctx context.Context, tenantID string, d syncerror.Arrival, now time.Time) (string, bool, error) {
	it := s.webhookItem(tenantID, d.WebhookID)
	it["message_key"] = dynamostore.Str(d.Message)
	it[ttlAttribute] = dynamostore.Num(now.Add(syncerror.WebhookIDTTL).Unix())
	old, ok, err := s.putIfAbsent(ctx, it, "attribute_not_exists(id) OR #exp < :now",
		map[string]string{"#exp": ttlAttribute}, dynamostore.Item{":now": dynamostore.Num(now.Unix())})
	if err != nil || ok {
		return d.Message, ok, err
	}
	return dynamostore.GetString(old, "message_key"), false, nil
}

// putIfAbsent puts it on cond; refused, it returns the item that stood there, read when
// the refusal does not carry it (dynalite does not return it).
func (s *DynamoClaims) putIfAbsent(ctx context.Context, it dynamostore.Item, cond string, names map[string]string,
	values dynamostore.Item) (dynamostore.Item, bool, error) {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return nil, true, nil
	}
	tenantID, id := dynamostore.GetString(it, "tenant_id"), dynamostore.GetString(it, "id")
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, false, fmt.Errorf("record %s of %s: %w", id[:6], tenantID, err)
	}
	if ccf.Item != nil {
		return ccf.Item, false, nil
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: s.key(tenantID, id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, false, fmt.Errorf("read %s of %s: %w", id[:6], tenantID, err)
	}
	return out.Item, false, nil
}

// ttlAttribute is the processed table's TTL attribute: only the webhook-id items carry it.
var ttlAttribute = blueprint.Processed.TTLAttribute
