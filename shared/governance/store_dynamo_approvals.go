package governance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// storedRequest is the held write as stored, with names that do not depend on the Go
// field names.
type storedRequest struct {
	Target         string          `json:"target"`
	Source         string          `json:"source"`
	Entity         string          `json:"entity"`
	RecordID       string          `json:"recordId"`
	Fields         json.RawMessage `json:"fields"`
	IdempotencyKey string          `json:"idempotencyKey"`
	Reason         string          `json:"reason,omitempty"`
	IfVersion      string          `json:"ifVersion,omitempty"`
	ReleaseByRetry bool            `json:"releaseByRetry,omitempty"`
	// UpsertKey and Create: a held upsert or create is released as one (2026-12-01: they
	// were not stored, and a released upsert by e-mail was sent as an update by record id).
	UpsertKey string `json:"upsertKey,omitempty"`
	Create    bool   `json:"create,omitempty"`
	// Link is kept so that the released write is loop-checked and leaves its trail as
	// the held one would have.
	Link *storedLink `json:"link,omitempty"`
}

type storedLink struct {
	Key    string           `json:"key,omitempty"`
	Fields json.RawMessage  `json:"fields,omitempty"`
	Traces map[string]Trace `json:"traces,omitempty"`
	// Changed and Received are kept so that the release is not made of values a newer
	// change of the source record has been written to since (supersede.go).
	Changed  *time.Time `json:"changed,omitempty"`
	Received *time.Time `json:"received,omitempty"`
}

func encodeRequest(r WriteRequest) (string, error) {
	fields, err := json.Marshal(r.Fields)
	if err != nil {
		return "", err
	}
	sr := storedRequest{
		Target: string(r.Target), Source: string(r.Source), Entity: r.Entity, RecordID: r.RecordID, Fields: fields,
		IdempotencyKey: r.IdempotencyKey, Reason: r.Reason, IfVersion: r.IfVersion, ReleaseByRetry: r.ReleaseByRetry,
		UpsertKey: r.UpsertKey, Create: r.Create,
	}
	if l := r.Link; l != nil {
		sr.Link = &storedLink{Key: l.Key, Traces: l.Traces}
		if !l.Changed.IsZero() {
			changed, received := l.Changed.UTC(), l.Received.UTC()
			sr.Link.Changed, sr.Link.Received = &changed, &received
		}
		if l.Key != "" {
			if sr.Link.Fields, err = json.Marshal(l.Fields); err != nil {
				return "", err
			}
		}
	}
	b, err := json.Marshal(sr)
	return string(b), err
}

func decodeJSON(raw json.RawMessage, dst *map[string]any) error {
	// Numbers stay json.Number, so the released write sends exactly what was held.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(dst)
}

func decodeRequest(s string) (WriteRequest, error) {
	var sr storedRequest
	if err := json.Unmarshal([]byte(s), &sr); err != nil {
		return WriteRequest{}, err
	}
	r := WriteRequest{
		Target: connector.System(sr.Target), Source: connector.System(sr.Source), Entity: sr.Entity,
		RecordID: sr.RecordID, IdempotencyKey: sr.IdempotencyKey, Reason: sr.Reason, IfVersion: sr.IfVersion,
		ReleaseByRetry: sr.ReleaseByRetry, UpsertKey: sr.UpsertKey, Create: sr.Create,
	}
	if err := decodeJSON(sr.Fields, &r.Fields); err != nil {
		return WriteRequest{}, err
	}
	if l := sr.Link; l != nil {
		r.Link = &Link{Key: l.Key, Traces: l.Traces}
		if l.Changed != nil {
			r.Link.Changed = *l.Changed
		}
		if l.Received != nil {
			r.Link.Received = *l.Received
		}
		if len(l.Fields) > 0 {
			if err := decodeJSON(l.Fields, &r.Link.Fields); err != nil {
				return WriteRequest{}, err
			}
		}
	}
	return r, nil
}

func tenantStatus(tenant string, s ApprovalStatus) string { return tenant + "#" + string(s) }

func approvalSort(a PendingApproval) string {
	return a.Reason + "#" + dynamostore.FormatTime(a.Time) + "#" + a.ID
}

func (s *DynamoStore) approvalKey(tenant, id string) dynamostore.Item {
	return dynamostore.Item{"tenant_id": dynamostore.Str(tenant), "record": dynamostore.Str(prefixApproval + id)}
}

// PutApproval implements RecordStore.
func (s *DynamoStore) PutApproval(ctx context.Context, a PendingApproval) error {
	req, err := encodeRequest(a.Request)
	if err != nil {
		return fmt.Errorf("put approval %s: request: %w", a.ID, err)
	}
	it := dynamostore.Item{
		"tenant_id":      dynamostore.Str(a.Tenant),
		"record":         dynamostore.Str(prefixApproval + a.ID),
		"id":             dynamostore.Str(a.ID),
		"at":             dynamostore.Str(dynamostore.FormatTime(a.Time)),
		"entity":         dynamostore.Str(a.Entity),
		"declared_owner": dynamostore.Str(string(a.DeclaredOwner)),
		"caller":         dynamostore.Str(string(a.Caller)),
		"target":         dynamostore.Str(string(a.Target)),
		"reason":         dynamostore.Str(a.Reason),
		"status":         dynamostore.Str(string(a.Status)),
		"tenant_status":  dynamostore.Str(tenantStatus(a.Tenant, a.Status)),
		"approval_sort":  dynamostore.Str(approvalSort(a)),
		"request":        dynamostore.Str(req),
		"fields":         dynamostore.StrList(a.Fields),
	}
	dynamostore.PutOptional(it, "resource", a.Resource)
	dynamostore.PutOptional(it, "correlation_id", a.CorrelationID)
	dynamostore.PutOptional(it, "requested_by", a.RequestedBy)
	dynamostore.PutOptional(it, "payload_hash", a.PayloadHash)
	if len(a.RequestedByKeys) > 0 {
		it["requested_by_keys"] = dynamostore.StrList(a.RequestedByKeys)
	}
	if a.DecidedBy != "" {
		it["decided_by"] = dynamostore.Str(a.DecidedBy)
		it["decided_at"] = dynamostore.Str(dynamostore.FormatTime(a.DecidedAt))
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return ErrExists
	}
	if err != nil {
		return fmt.Errorf("put approval %s: %w", a.ID, err)
	}
	return nil
}

func approvalFrom(it dynamostore.Item) (PendingApproval, error) {
	a := PendingApproval{
		ID: dynamostore.GetString(it, "id"), Tenant: dynamostore.GetString(it, "tenant_id"), Entity: dynamostore.GetString(it, "entity"),
		DeclaredOwner: connector.System(dynamostore.GetString(it, "declared_owner")), Caller: connector.System(dynamostore.GetString(it, "caller")),
		Target: connector.System(dynamostore.GetString(it, "target")), Resource: dynamostore.GetString(it, "resource"),
		Reason: dynamostore.GetString(it, "reason"), Status: ApprovalStatus(dynamostore.GetString(it, "status")),
		Fields: dynamostore.GetStrList(it, "fields"), CorrelationID: dynamostore.GetString(it, "correlation_id"),
		RequestedBy: dynamostore.GetString(it, "requested_by"), DecidedBy: dynamostore.GetString(it, "decided_by"),
		PayloadHash: dynamostore.GetString(it, "payload_hash"), RequestedByKeys: dynamostore.GetStrList(it, "requested_by_keys"),
	}
	var err error
	if a.Time, err = dynamostore.ParseTime(dynamostore.GetString(it, "at")); err != nil {
		return a, fmt.Errorf("approval %s: at: %w", a.ID, err)
	}
	if a.DecidedAt, err = dynamostore.ParseTime(dynamostore.GetString(it, "decided_at")); err != nil {
		return a, fmt.Errorf("approval %s: decided_at: %w", a.ID, err)
	}
	if a.Request, err = decodeRequest(dynamostore.GetString(it, "request")); err != nil {
		return a, fmt.Errorf("approval %s: request: %w", a.ID, err)
	}
	return a, nil
}

// GetApproval implements RecordStore.
func (s *DynamoStore) GetApproval(ctx context.Context, tenant, id string) (PendingApproval, error) {
	it, err := s.approvalItem(ctx, tenant, id)
	if err != nil {
		return PendingApproval{}, err
	}
	return approvalFrom(it)
}

// approvalItem reads an approval's item, strongly consistent; ErrNotFound when there is none.
func (s *DynamoStore) approvalItem(ctx context.Context, tenant, id string) (dynamostore.Item, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: s.approvalKey(tenant, id), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get approval %s/%s: %w", tenant, id, err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// ListApprovals implements RecordStore through the by_approval_status index.
// The index is eventually consistent in AWS: a decision may take a moment to move an
// approval from one status's listing to another's.
func (s *DynamoStore) ListApprovals(ctx context.Context, q ApprovalQuery) (Page[PendingApproval], error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		IndexName:              aws.String(blueprint.IndexByApprovalStatus),
		KeyConditionExpression: aws.String("tenant_status = :ts AND begins_with(approval_sort, :reason)"),
		ExpressionAttributeValues: dynamostore.Item{
			":ts":     dynamostore.Str(tenantStatus(q.Tenant, q.Status)),
			":reason": dynamostore.Str(q.Reason + "#"),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
	}
	if q.Cursor != "" {
		sortKey, id, err := decodeApprovalCursor(q.Reason, q.Cursor)
		if err != nil {
			return Page[PendingApproval]{}, err
		}
		in.ExclusiveStartKey = dynamostore.Item{
			"tenant_status": dynamostore.Str(tenantStatus(q.Tenant, q.Status)), "approval_sort": dynamostore.Str(sortKey),
			"tenant_id": dynamostore.Str(q.Tenant), "record": dynamostore.Str(prefixApproval + id),
		}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return Page[PendingApproval]{}, fmt.Errorf("query approvals: %w", err)
	}
	var p Page[PendingApproval]
	for _, it := range out.Items {
		if len(p.Items) == q.Limit {
			p.NextCursor = dynamostore.EncodeCursor(approvalSort(p.Items[len(p.Items)-1]))
			break
		}
		a, err := approvalFrom(it)
		if err != nil {
			return Page[PendingApproval]{}, err
		}
		p.Items = append(p.Items, a)
	}
	return p, nil
}

func decodeApprovalCursor(reason, cursor string) (sortKey, id string, err error) {
	sortKey, id, ok := dynamostore.DecodeTimedCursor(cursor, reason+"#")
	if !ok || id == "" {
		return "", "", ErrBadCursor
	}
	return sortKey, id, nil
}

// DecideApproval implements RecordStore with one conditional update.
func (s *DynamoStore) DecideApproval(ctx context.Context, tenant, id string, from, to ApprovalStatus, by string, at time.Time) (PendingApproval, error) {
	set := "SET #status = :to, tenant_status = :ts"
	var remove []string
	values := dynamostore.Item{
		":from": dynamostore.Str(string(from)),
		":to":   dynamostore.Str(string(to)),
		":ts":   dynamostore.Str(tenantStatus(tenant, to)),
	}
	if by == "" {
		remove = append(remove, "decided_by", "decided_at")
	} else {
		set += ", decided_by = :by, decided_at = :at"
		values[":by"] = dynamostore.Str(by)
		values[":at"] = dynamostore.Str(dynamostore.FormatTime(at))
	}
	update := set
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}
	return s.updateApproval(ctx, tenant, id, "attribute_exists(tenant_id) AND #status = :from", update, values)
}

// RetakeRelease implements RecordStore with one conditional update on the
// previous decision time, so of concurrent takers exactly one matches it.
func (s *DynamoStore) RetakeRelease(ctx context.Context, tenant, id string, staleBefore time.Time, by string, at time.Time) (PendingApproval, error) {
	return s.updateApproval(ctx, tenant, id,
		"attribute_exists(tenant_id) AND #status = :releasing AND decided_at < :stale",
		"SET decided_by = :by, decided_at = :at",
		dynamostore.Item{
			":releasing": dynamostore.Str(string(StatusReleasing)),
			":stale":     dynamostore.Str(dynamostore.FormatTime(staleBefore)),
			":by":        dynamostore.Str(by),
			":at":        dynamostore.Str(dynamostore.FormatTime(at)),
		})
}

// updateApproval makes one conditional update of an approval. A write token tells an
// update the SDK sent again after its first was applied (its answer lost) from another
// decider's: as ErrStateChanged, an approve would be answered 409 not_pending and the
// held write left releasing until the retake.
func (s *DynamoStore) updateApproval(ctx context.Context, tenant, id, cond, update string, values dynamostore.Item) (PendingApproval, error) {
	it, err := dynamostore.UpdateOnce(ctx, s.client, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.approvalKey(tenant, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	}, dynamostore.NewWriteToken(), ErrNotFound, ErrStateChanged)
	if err != nil {
		return PendingApproval{}, fmt.Errorf("update approval %s/%s: %w", tenant, id, err)
	}
	return approvalFrom(it)
}
