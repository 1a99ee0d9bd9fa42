package dynamostore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
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
	// Link is kept so that the released write is loop-checked and leaves its trail as
	// the held one would have.
	Link *storedLink `json:"link,omitempty"`
}

type storedLink struct {
	Key    string                      `json:"key,omitempty"`
	Fields json.RawMessage             `json:"fields,omitempty"`
	Traces map[string]governance.Trace `json:"traces,omitempty"`
}

func encodeRequest(r governance.WriteRequest) (string, error) {
	fields, err := json.Marshal(r.Fields)
	if err != nil {
		return "", err
	}
	sr := storedRequest{
		Target: string(r.Target), Source: string(r.Source), Entity: r.Entity, RecordID: r.RecordID, Fields: fields,
		IdempotencyKey: r.IdempotencyKey, Reason: r.Reason, IfVersion: r.IfVersion,
	}
	if l := r.Link; l != nil {
		sr.Link = &storedLink{Key: l.Key, Traces: l.Traces}
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

func decodeRequest(s string) (governance.WriteRequest, error) {
	var sr storedRequest
	if err := json.Unmarshal([]byte(s), &sr); err != nil {
		return governance.WriteRequest{}, err
	}
	r := governance.WriteRequest{
		Target: connector.System(sr.Target), Source: connector.System(sr.Source), Entity: sr.Entity,
		RecordID: sr.RecordID, IdempotencyKey: sr.IdempotencyKey, Reason: sr.Reason, IfVersion: sr.IfVersion,
	}
	if err := decodeJSON(sr.Fields, &r.Fields); err != nil {
		return governance.WriteRequest{}, err
	}
	if l := sr.Link; l != nil {
		r.Link = &governance.Link{Key: l.Key, Traces: l.Traces}
		if len(l.Fields) > 0 {
			if err := decodeJSON(l.Fields, &r.Link.Fields); err != nil {
				return governance.WriteRequest{}, err
			}
		}
	}
	return r, nil
}

func tenantStatus(tenant string, s governance.ApprovalStatus) string { return tenant + "#" + string(s) }

func approvalSort(a governance.PendingApproval) string {
	return a.Reason + "#" + FormatTime(a.Time) + "#" + a.ID
}

func (s *Governance) approvalKey(tenant, id string) Item {
	return Item{"tenant_id": Str(tenant), "record": Str(prefixApproval + id)}
}

// PutApproval implements governance.RecordStore.
func (s *Governance) PutApproval(ctx context.Context, a governance.PendingApproval) error {
	req, err := encodeRequest(a.Request)
	if err != nil {
		return fmt.Errorf("put approval %s: request: %w", a.ID, err)
	}
	it := Item{
		"tenant_id":      Str(a.Tenant),
		"record":         Str(prefixApproval + a.ID),
		"id":             Str(a.ID),
		"at":             Str(FormatTime(a.Time)),
		"entity":         Str(a.Entity),
		"declared_owner": Str(string(a.DeclaredOwner)),
		"caller":         Str(string(a.Caller)),
		"target":         Str(string(a.Target)),
		"reason":         Str(a.Reason),
		"status":         Str(string(a.Status)),
		"tenant_status":  Str(tenantStatus(a.Tenant, a.Status)),
		"approval_sort":  Str(approvalSort(a)),
		"request":        Str(req),
		"fields":         strList(a.Fields),
	}
	PutOptional(it, "resource", a.Resource)
	PutOptional(it, "correlation_id", a.CorrelationID)
	PutOptional(it, "requested_by", a.RequestedBy)
	if a.DecidedBy != "" {
		it["decided_by"] = Str(a.DecidedBy)
		it["decided_at"] = Str(FormatTime(a.DecidedAt))
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if IsConditionFailed(err) {
		return governance.ErrExists
	}
	if err != nil {
		return fmt.Errorf("put approval %s: %w", a.ID, err)
	}
	return nil
}

func approvalFrom(it Item) (governance.PendingApproval, error) {
	a := governance.PendingApproval{
		ID: GetString(it, "id"), Tenant: GetString(it, "tenant_id"), Entity: GetString(it, "entity"),
		DeclaredOwner: connector.System(GetString(it, "declared_owner")), Caller: connector.System(GetString(it, "caller")),
		Target: connector.System(GetString(it, "target")), Resource: GetString(it, "resource"),
		Reason: GetString(it, "reason"), Status: governance.ApprovalStatus(GetString(it, "status")),
		Fields: getStrList(it, "fields"), CorrelationID: GetString(it, "correlation_id"),
		RequestedBy: GetString(it, "requested_by"), DecidedBy: GetString(it, "decided_by"),
	}
	var err error
	if a.Time, err = ParseTime(GetString(it, "at")); err != nil {
		return a, fmt.Errorf("approval %s: at: %w", a.ID, err)
	}
	if a.DecidedAt, err = ParseTime(GetString(it, "decided_at")); err != nil {
		return a, fmt.Errorf("approval %s: decided_at: %w", a.ID, err)
	}
	if a.Request, err = decodeRequest(GetString(it, "request")); err != nil {
		return a, fmt.Errorf("approval %s: request: %w", a.ID, err)
	}
	return a, nil
}

// GetApproval implements governance.RecordStore.
func (s *Governance) GetApproval(ctx context.Context, tenant, id string) (governance.PendingApproval, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: s.approvalKey(tenant, id), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return governance.PendingApproval{}, fmt.Errorf("get approval %s/%s: %w", tenant, id, err)
	}
	if out.Item == nil {
		return governance.PendingApproval{}, governance.ErrNotFound
	}
	return approvalFrom(out.Item)
}

// ListApprovals implements governance.RecordStore through the by_approval_status index.
// The index is eventually consistent in AWS: a decision may take a moment to move an
// approval from one status's listing to another's.
func (s *Governance) ListApprovals(ctx context.Context, q governance.ApprovalQuery) (governance.Page[governance.PendingApproval], error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		IndexName:              aws.String(blueprint.IndexByApprovalStatus),
		KeyConditionExpression: aws.String("tenant_status = :ts AND begins_with(approval_sort, :reason)"),
		ExpressionAttributeValues: Item{
			":ts":     Str(tenantStatus(q.Tenant, q.Status)),
			":reason": Str(q.Reason + "#"),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
	}
	if q.Cursor != "" {
		sortKey, id, err := decodeApprovalCursor(q.Reason, q.Cursor)
		if err != nil {
			return governance.Page[governance.PendingApproval]{}, err
		}
		in.ExclusiveStartKey = Item{
			"tenant_status": Str(tenantStatus(q.Tenant, q.Status)), "approval_sort": Str(sortKey),
			"tenant_id": Str(q.Tenant), "record": Str(prefixApproval + id),
		}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return governance.Page[governance.PendingApproval]{}, fmt.Errorf("query approvals: %w", err)
	}
	var p governance.Page[governance.PendingApproval]
	for _, it := range out.Items {
		if len(p.Items) == q.Limit {
			p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(approvalSort(p.Items[len(p.Items)-1])))
			break
		}
		a, err := approvalFrom(it)
		if err != nil {
			return governance.Page[governance.PendingApproval]{}, err
		}
		p.Items = append(p.Items, a)
	}
	return p, nil
}

func decodeApprovalCursor(reason, cursor string) (sortKey, id string, err error) {
	raw, derr := base64.RawURLEncoding.DecodeString(cursor)
	if derr != nil {
		return "", "", governance.ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(raw), reason+"#")
	if !ok || len(rest) <= len(timeLayout)+1 || rest[len(timeLayout)] != '#' {
		return "", "", governance.ErrBadCursor
	}
	if _, perr := ParseTime(rest[:len(timeLayout)]); perr != nil {
		return "", "", governance.ErrBadCursor
	}
	return string(raw), rest[len(timeLayout)+1:], nil
}

// DecideApproval implements governance.RecordStore with one conditional update.
func (s *Governance) DecideApproval(ctx context.Context, tenant, id string, from, to governance.ApprovalStatus, by string, at time.Time) (governance.PendingApproval, error) {
	update := "SET #status = :to, tenant_status = :ts"
	values := Item{
		":from": Str(string(from)),
		":to":   Str(string(to)),
		":ts":   Str(tenantStatus(tenant, to)),
	}
	if by == "" {
		update += " REMOVE decided_by, decided_at"
	} else {
		update += ", decided_by = :by, decided_at = :at"
		values[":by"] = Str(by)
		values[":at"] = Str(FormatTime(at))
	}
	return s.updateApproval(ctx, tenant, id, "attribute_exists(tenant_id) AND #status = :from", update, values)
}

// RetakeRelease implements governance.RecordStore with one conditional update on the
// previous decision time, so of concurrent takers exactly one matches it.
func (s *Governance) RetakeRelease(ctx context.Context, tenant, id string, staleBefore time.Time, by string, at time.Time) (governance.PendingApproval, error) {
	return s.updateApproval(ctx, tenant, id,
		"attribute_exists(tenant_id) AND #status = :releasing AND decided_at < :stale",
		"SET decided_by = :by, decided_at = :at",
		Item{
			":releasing": Str(string(governance.StatusReleasing)),
			":stale":     Str(FormatTime(staleBefore)),
			":by":        Str(by),
			":at":        Str(FormatTime(at)),
		})
}

func (s *Governance) updateApproval(ctx context.Context, tenant, id, cond, update string, values Item) (governance.PendingApproval, error) {
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.approvalKey(tenant, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if IsConditionFailed(err) {
		// Tell a missing approval from one in another state; the emulator returns no item
		// with the failure, so read.
		if _, err := s.GetApproval(ctx, tenant, id); err != nil {
			return governance.PendingApproval{}, err
		}
		return governance.PendingApproval{}, governance.ErrStateChanged
	}
	if err != nil {
		return governance.PendingApproval{}, fmt.Errorf("update approval %s/%s: %w", tenant, id, err)
	}
	return approvalFrom(out.Attributes)
}
