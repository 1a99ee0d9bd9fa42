package dynamo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// Fold implements FoldStore in one write for the common cases: a row this store has not
// folded into yet is created with a conditional put, and an occurrence of a row it has is
// counted with a short conditional update (occurrences, last_seen, the error key). Issue
// 37 §0: one update both creating and counting had to name every attribute of the row
// (SET a = if_not_exists(a, :a) for each), which the local emulator parses at a cost that
// halved the ingest's throughput, and which sent the whole row on every occurrence. A
// guess that misses costs one refused write: a put finding the row (another process
// created it), or an update finding none (a tenant's rows erased), answered by creating
// it.
//
// The SDK's resend of a write DynamoDB had applied is refused by its own first attempt,
// and is still answered as what it did, by a token. The create's is the new row's
// write_token: no other update of the row can be waiting on its own token yet, and the
// diagnosis's first update replaces it anyway, so it costs the row no size (a new row is
// just under 1 KB: infra/cost/claimrow_test.go; an attribute of its own took it over). A
// write landing between the lost answer and the resend replaces it, and the create is
// then answered as a duplicate, leaving its diagnosis to the reconcile (before, every
// resent create was). The count's is fold_token, the fold's own: every other update reads
// write_token for its own resend, and a count rewriting it between another update's lost
// answer and that resend would let the resend apply twice. (Telling a resent create by
// the row's first errorId answered every concurrent delivery of one errorId as the
// create: the fault suite and TestConcurrentDeliveriesOneRowOneMessage caught it.)
//
// A row past its key bound (syncerror.MaxErrorKeys) is counted without the key, on the
// condition that the key's slot among the row's last keys (recent_<slot>) does not hold
// it, and the count leaves it there. A store that knows the row full (from the count it
// made last) sends that count at once, not first a keeping count refused at the row's size.
// A resend of such a count after another count replaced fold_token finds the key in its
// slot and is answered as a duplicate (counted once, and syncerror.Fold marks it as it
// marks a count), unless another key took the slot in between (counted twice).
func (s *DynamoClaims) Fold(ctx context.Context, c syncerror.Claim, errorKey string) (syncerror.FoldResult, syncerror.Claim, error) {
	row := c.TenantID + "\n" + c.ID
	full, seen := s.folded.Load(row)
	create := !seen
	for range 3 {
		createTok := ""
		if create {
			createTok = s.writeToken()
			// c is the row's first post: occurrences 1, its own error key (syncerror.Fold).
			created, err := s.putNew(ctx, c, createTok)
			if err != nil {
				return 0, syncerror.Claim{}, err
			}
			if created {
				s.folded.Store(row, false)
				return syncerror.FoldCreated, c, nil
			}
		}
		res, got, err := s.countOccurrence(ctx, c, errorKey, createTok, !full)
		switch {
		case errors.Is(err, errFull), errors.Is(err, errNotFull):
			create, full = false, errors.Is(err, errFull) // count without the key, or keeping it
			continue
		case errors.Is(err, syncerror.ErrNotFound):
			create, full = true, false // gone since: create it
			continue
		case errors.Is(err, errChangedUnder):
			create, full = false, false
			continue // deleted and created again in between: count again
		case err == nil && (res == syncerror.FoldCreated || res == syncerror.FoldOccurrence):
			s.folded.Store(row, got.Retry.Occurrences >= syncerror.MaxErrorKeys)
		}
		return res, got, err
	}
	return 0, syncerror.Claim{}, syncerror.ErrStateChanged
}

// errChangedUnder is a count refused on a row that reads open and without its key: the
// row changed between the update and the read (deleted and created again, or its key's
// slot taken by another key: then the count is sent again and counts the post twice, a
// window of one round trip). errFull is a keeping count refused by the row's key bound,
// errNotFull a count without the key refused on a row below it (made again since this
// store saw it full).
var (
	errChangedUnder = errors.New("fold: the row changed under the count")
	errFull         = errors.New("fold: the row keeps MaxErrorKeys keys")
	errNotFull      = errors.New("fold: the row keeps fewer than MaxErrorKeys keys")
)

// foldTokenAttribute holds the token of the fold's last count of a row (Fold).
const foldTokenAttribute = "fold_token"

// recentKey is the attribute of errorKey's slot among a full row's last keys.
func recentKey(errorKey string) string {
	return "recent_" + strconv.Itoa(syncerror.RecentKeySlot(errorKey))
}

// countOccurrence counts c as one more occurrence of its open row that has not seen
// errorKey: keeping the key (keep; errFull when the row holds MaxErrorKeys), or, past the
// bound (on a row at it), leaving it in its slot among the row's last keys. Refused, it
// reads the row: FoldCreated when the row carries createTok, this post's refused put's
// (the SDK's resend of one applied), FoldOccurrence when it carries this count's token
// (the same for the count), FoldDuplicate when the row has seen errorKey (among its keys
// or in its slot), FoldClosed when it is closed, ErrNotFound when there is none.
func (s *DynamoClaims) countOccurrence(ctx context.Context, c syncerror.Claim, errorKey, createTok string, keep bool) (syncerror.FoldResult, syncerror.Claim, error) {
	tok := s.writeToken()
	values := dynamostore.Item{
		":one":      dynamostore.Num(1),
		":seen":     dynamostore.Str(dynamostore.FormatTime(c.ClaimedAt)),
		":tok":      dynamostore.Str(tok),
		":key":      dynamostore.Str(errorKey),
		":max":      dynamostore.Num(syncerror.MaxErrorKeys),
		":approved": dynamostore.Str(string(syncerror.StatusApproved)),
		":rejected": dynamostore.Str(string(syncerror.StatusRejected)),
		":resolved": dynamostore.Str(string(syncerror.StatusResolved)),
		":reverted": dynamostore.Str(string(syncerror.StatusReverted)),
	}
	names := map[string]string{"#status": "status"}
	// One level of parentheses at most: dynalite's expression parser backtracks on them
	// (diagnosis.go). A comparison with a missing attribute is false, so NOT x = :v and
	// NOT x >= :v hold where x is absent, in DynamoDB as in dynalite and moto.
	cond := "attribute_exists(id) AND NOT #status IN (:approved, :rejected, :resolved, :reverted) AND NOT " +
		foldTokenAttribute + " = :tok AND NOT contains(error_keys, :key)"
	update := "SET last_seen = :seen, " + foldTokenAttribute + " = :tok"
	if keep {
		values[":keys"] = &types.AttributeValueMemberSS{Value: []string{errorKey}}
		update += " ADD occurrences :one, error_keys :keys"
		cond += " AND NOT occurrences >= :max"
	} else {
		names["#recent"] = recentKey(errorKey)
		update += ", #recent = :key ADD occurrences :one"
		cond += " AND NOT #recent = :key AND occurrences >= :max"
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: s.key(c.TenantID, c.ID),
		ConditionExpression: aws.String(cond), UpdateExpression: aws.String(update),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllOld,
	})
	if err == nil {
		row, err := claimFrom(out.Attributes)
		if err != nil {
			return 0, syncerror.Claim{}, err
		}
		return syncerror.FoldOccurrence, syncerror.Occurred(row, c, errorKey, keep), nil
	}
	if !dynamostore.IsConditionFailed(err) {
		return 0, syncerror.Claim{}, fmt.Errorf("fold %s/%s: %w", c.TenantID, c.ID, err)
	}
	stored, err := s.getItem(ctx, c.TenantID, c.ID)
	if err != nil {
		return 0, syncerror.Claim{}, err
	}
	row, err := claimFrom(stored)
	switch {
	case err != nil:
		return 0, syncerror.Claim{}, err
	case createTok != "" && dynamostore.GetString(stored, dynamostore.WriteTokenAttribute) == createTok:
		return syncerror.FoldCreated, row, nil
	case dynamostore.GetString(stored, foldTokenAttribute) == tok:
		return syncerror.FoldOccurrence, row, nil
	case slices.Contains(row.Retry.ErrorKeys, errorKey) || dynamostore.GetString(stored, recentKey(errorKey)) == errorKey:
		return syncerror.FoldDuplicate, row, nil
	case row.Status.Closed():
		return syncerror.FoldClosed, row, nil
	case keep && row.Retry.Occurrences >= syncerror.MaxErrorKeys:
		return 0, syncerror.Claim{}, errFull
	case !keep && row.Retry.Occurrences < syncerror.MaxErrorKeys:
		return 0, syncerror.Claim{}, errNotFull
	}
	return 0, syncerror.Claim{}, errChangedUnder
}

func (s *DynamoClaims) errorKeyItem(tenantID, errorKey string) dynamostore.Item {
	return s.key(tenantID, "~eid#"+errorKey)
}

// MarkErrorKey implements FoldStore: row_id on the errorId's record, the attribute the
// records written before signatures kept their row in, so priorRow (and an instance on
// the code before the mark) reads both alike; row_claimed beside it.
func (s *DynamoClaims) MarkErrorKey(ctx context.Context, tenantID, errorKey, rowID string, rowClaimedAt time.Time) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table),
		Key: s.errorKeyItem(tenantID, errorKey), ConditionExpression: aws.String("attribute_exists(id)"),
		UpdateExpression:          aws.String("SET row_id = :row, row_claimed = :at"),
		ExpressionAttributeValues: dynamostore.Item{":row": dynamostore.Str(rowID), ":at": dynamostore.Str(dynamostore.FormatTime(rowClaimedAt))}})
	switch {
	case dynamostore.IsConditionFailed(err):
		return syncerror.ErrNotFound
	case err != nil:
		return fmt.Errorf("mark error key of %s: %w", tenantID, err)
	}
	return nil
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
	// row_id: MarkErrorKey's, or a record's written before records kept the signature.
	rec := syncerror.ErrorRecord{Signature: dynamostore.GetString(old, "signature"), RowID: dynamostore.GetString(old, "row_id")}
	if at := dynamostore.GetString(old, "row_claimed"); at != "" {
		t, err := dynamostore.ParseTime(at)
		if err != nil {
			return syncerror.ErrorRecord{}, false, fmt.Errorf("error key of %s: row_claimed: %w", tenantID, err)
		}
		rec.RowClaimedAt = t
	}
	return rec, false, nil
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
