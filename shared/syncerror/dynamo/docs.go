package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// Documents live in the processed table under "~" keys. They carry none of the rows'
// index attributes, so no listing of rows sees them; a document with a Sort carries the
// docs_by_time index's own (doc_list: tenant#prefix, doc_sort: time#key).

var _ syncerror.AssistStore = (*DynamoClaims)(nil)

func docFrom(it dynamostore.Item) (syncerror.Doc, error) {
	v, err := dynamostore.GetInt(it, "doc_version")
	if err != nil {
		return syncerror.Doc{}, fmt.Errorf("document %s: %w", dynamostore.GetString(it, "id"), err)
	}
	at, _ := dynamostore.ParseTime(dynamostore.GetString(it, "updated_at"))
	d := syncerror.Doc{Key: dynamostore.GetString(it, "id"), Version: int(v), Body: []byte(dynamostore.GetString(it, "body")), UpdatedAt: at}
	if sortAt, _, ok := strings.Cut(dynamostore.GetString(it, "doc_sort"), "#"); ok {
		d.Sort, _ = dynamostore.ParseTime(sortAt)
	}
	return d, nil
}

// docSortKey is a document's doc_sort: its Sort, then its key, so that equal times differ.
func docSortKey(d syncerror.Doc) string { return dynamostore.FormatTime(d.Sort) + "#" + d.Key }

// GetDoc implements DocStore.
func (s *DynamoClaims) GetDoc(ctx context.Context, tenantID, key string) (syncerror.Doc, error) {
	if !syncerror.ValidDocKey(key) {
		return syncerror.Doc{}, syncerror.ErrNotFound
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: s.key(tenantID, key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return syncerror.Doc{}, fmt.Errorf("document %s/%s: %w", tenantID, key, err)
	}
	if out.Item == nil {
		return syncerror.Doc{}, syncerror.ErrNotFound
	}
	return docFrom(out.Item)
}

// PutDoc implements DocStore.
func (s *DynamoClaims) PutDoc(ctx context.Context, tenantID string, d syncerror.Doc, now time.Time) (syncerror.Doc, error) {
	if !syncerror.ValidDocKey(d.Key) {
		return syncerror.Doc{}, fmt.Errorf("document key %q is not a document's", d.Key)
	}
	cond, values := "attribute_not_exists(id)", dynamostore.Item{}
	if d.Version > 0 {
		cond, values[":v"] = "doc_version = :v", dynamostore.Num(int64(d.Version))
	}
	out := syncerror.Doc{Key: d.Key, Version: d.Version + 1, Body: d.Body, UpdatedAt: now.UTC()}
	it := s.key(tenantID, d.Key)
	it["doc_version"] = dynamostore.Num(int64(out.Version))
	it["body"] = dynamostore.Str(string(d.Body))
	it["updated_at"] = dynamostore.Str(dynamostore.FormatTime(out.UpdatedAt))
	if !d.Sort.IsZero() {
		out.Sort = d.Sort.UTC()
		it["doc_list"] = dynamostore.Str(tenantID + "#" + syncerror.DocPrefix(d.Key))
		it["doc_sort"] = dynamostore.Str(docSortKey(out))
	}
	// A put the SDK sent again after its first was applied is done: as a conflict, UpdateDoc
	// would apply its change twice (a learned fix's approvals counted twice).
	refused, err := dynamostore.PutOnce(ctx, s.client, s.table, s.key(tenantID, d.Key), it, cond, values)
	switch {
	case err != nil:
		return syncerror.Doc{}, fmt.Errorf("put document %s/%s: %w", tenantID, d.Key, err)
	case refused:
		return syncerror.Doc{}, syncerror.ErrStateChanged
	}
	return out, nil
}

// DeleteDoc implements DocStore.
func (s *DynamoClaims) DeleteDoc(ctx context.Context, tenantID, key string, version int) error {
	if !syncerror.ValidDocKey(key) {
		return syncerror.ErrNotFound
	}
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: s.key(tenantID, key),
		ConditionExpression:       aws.String("doc_version = :v"),
		ExpressionAttributeValues: dynamostore.Item{":v": dynamostore.Num(int64(version))}})
	if dynamostore.IsConditionFailed(err) {
		if _, gerr := s.GetDoc(ctx, tenantID, key); gerr == syncerror.ErrNotFound {
			return syncerror.ErrNotFound
		}
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("delete document %s/%s: %w", tenantID, key, err)
	}
	return nil
}

// ListDocs implements DocStore. The cursor is the last key served, base64url-encoded; it
// must lie under prefix.
func (s *DynamoClaims) ListDocs(ctx context.Context, tenantID, prefix string, limit int, cursor string) ([]syncerror.Doc, string, error) {
	if !syncerror.ValidDocKey(prefix) {
		return nil, "", fmt.Errorf("document prefix %q is not a document's", prefix)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(id, :p)"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str(tenantID), ":p": dynamostore.Str(prefix)},
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(limit)),
	}
	if cursor != "" {
		last, ok := dynamostore.DecodeCursor(cursor, prefix)
		if !ok {
			return nil, "", syncerror.ErrBadCursor
		}
		in.ExclusiveStartKey = s.key(tenantID, last)
	}
	docs, next, err := s.queryDocs(ctx, in, func(d syncerror.Doc) string { return d.Key })
	if err != nil {
		return nil, "", fmt.Errorf("list documents %s/%s: %w", tenantID, prefix, err)
	}
	return docs, next, nil
}

// queryDocs runs a listing's query and answers its page, with a cursor made by cursorOf
// from the last document served when there is more.
func (s *DynamoClaims) queryDocs(ctx context.Context, in *dynamodb.QueryInput, cursorOf func(syncerror.Doc) string) ([]syncerror.Doc, string, error) {
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return nil, "", err
	}
	docs := make([]syncerror.Doc, 0, len(out.Items))
	for _, it := range out.Items {
		d, err := docFrom(it)
		if err != nil {
			return nil, "", err
		}
		docs = append(docs, d)
	}
	next := ""
	if len(out.LastEvaluatedKey) > 0 && len(docs) > 0 {
		next = dynamostore.EncodeCursor(cursorOf(docs[len(docs)-1]))
	}
	return docs, next, nil
}

// ListDocsNewest implements DocStore over the sparse docs_by_time index. The cursor is
// the last doc_sort served; it names the key, so the table key of the start is known.
func (s *DynamoClaims) ListDocsNewest(ctx context.Context, tenantID, prefix string, limit int, cursor string) ([]syncerror.Doc, string, error) {
	if !syncerror.ValidDocKey(prefix) || syncerror.DocPrefix(prefix) != prefix {
		return nil, "", fmt.Errorf("document prefix %q is not a listing's", prefix)
	}
	list := tenantID + "#" + prefix
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexDocsByTime),
		KeyConditionExpression:    aws.String("doc_list = :l"),
		ExpressionAttributeValues: dynamostore.Item{":l": dynamostore.Str(list)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}
	if cursor != "" {
		last, key, ok := dynamostore.DecodeTimedCursor(cursor, "")
		if !ok || !strings.HasPrefix(key, prefix) {
			return nil, "", syncerror.ErrBadCursor
		}
		in.ExclusiveStartKey = s.key(tenantID, key)
		in.ExclusiveStartKey["doc_list"], in.ExclusiveStartKey["doc_sort"] = dynamostore.Str(list), dynamostore.Str(last)
	}
	docs, next, err := s.queryDocs(ctx, in, docSortKey)
	if err != nil {
		return nil, "", fmt.Errorf("list documents newest first %s/%s: %w", tenantID, prefix, err)
	}
	return docs, next, nil
}

// MarkReverted implements AssistStore.
func (s *DynamoClaims) MarkReverted(ctx context.Context, tenantID, id string, entry syncerror.HistoryEntry, now time.Time) error {
	return s.transition(ctx, "revert", tenantID, id, syncerror.StatusApproved, syncerror.StatusReverted, entry, now, "")
}
