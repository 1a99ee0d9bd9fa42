package dynamostore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/identity"
)

// Audit is the audit.Store on the audit table. The sort key is "<time>#<id>" so a tenant's
// records sort by time; the by_action_type index does the same per action type.
type Audit struct {
	client *dynamodb.Client
	table  string
}

var _ audit.Store = (*Audit)(nil)

// NewAudit returns the store for the physical table name.
func NewAudit(client *dynamodb.Client, table string) *Audit {
	return &Audit{client: client, table: table}
}

func auditSort(r audit.Record) string { return formatTime(r.At) + "#" + r.ID }

// Put implements audit.Store. Records are immutable: a put never overwrites.
func (s *Audit) Put(ctx context.Context, r audit.Record) error {
	actor, err := json.Marshal(r.Actor)
	if err != nil {
		return err
	}
	it := item{
		"tenant_id":     str(r.TenantID),
		"sort":          str(auditSort(r)),
		"tenant_action": str(r.TenantID + "#" + r.ActionType),
		"id":            str(r.ID),
		"at":            str(formatTime(r.At)),
		"actor":         str(string(actor)),
		"action_type":   str(r.ActionType),
		"action_key":    str(r.ActionKey),
		"result":        str(r.Result),
	}
	putOptional(it, "resource", r.Resource)
	putOptional(it, "correlation_id", r.CorrelationID)
	putOptional(it, "details", string(r.Details))
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		ConditionExpression: aws.String("attribute_not_exists(tenant_id)"),
	})
	if err != nil {
		return fmt.Errorf("put audit record: %w", err)
	}
	return nil
}

// Query implements audit.Store. It reads one item more than the limit to know whether a
// next page exists; the cursor is the last returned record's sort key.
func (s *Audit) Query(ctx context.Context, q audit.Query) (audit.Page, error) {
	in := &dynamodb.QueryInput{
		TableName:        aws.String(s.table),
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(q.Limit + 1)),
		ExpressionAttributeValues: item{
			":from": str(formatTime(q.From)),
			// "<to>" sorts before "<to>#id", so records at exactly To are excluded.
			":to": str(formatTime(q.To)),
		},
	}
	pk, pkValue := "tenant_id", q.TenantID
	if q.ActionType != "" {
		in.IndexName = aws.String(blueprint.IndexByActionType)
		pk, pkValue = "tenant_action", q.TenantID+"#"+q.ActionType
	}
	in.KeyConditionExpression = aws.String(pk + " = :pk AND #sort BETWEEN :from AND :to")
	in.ExpressionAttributeNames = map[string]string{"#sort": "sort"}
	in.ExpressionAttributeValues[":pk"] = str(pkValue)
	if q.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
		if err != nil || len(raw) < len(timeLayout) {
			return audit.Page{}, audit.ErrBadCursor
		}
		if _, err := parseTime(string(raw[:len(timeLayout)])); err != nil {
			return audit.Page{}, audit.ErrBadCursor
		}
		start := item{"tenant_id": str(q.TenantID), "sort": str(string(raw))}
		if q.ActionType != "" {
			start["tenant_action"] = str(pkValue)
		}
		in.ExclusiveStartKey = start
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return audit.Page{}, fmt.Errorf("query audit: %w", err)
	}
	var p audit.Page
	for _, it := range out.Items {
		if len(p.Records) == q.Limit {
			last := p.Records[len(p.Records)-1]
			p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(auditSort(last)))
			break
		}
		r, err := auditFrom(it)
		if err != nil {
			return audit.Page{}, err
		}
		p.Records = append(p.Records, r)
	}
	return p, nil
}

func auditFrom(it item) (audit.Record, error) {
	r := audit.Record{
		TenantID:      getString(it, "tenant_id"),
		ID:            getString(it, "id"),
		ActionType:    getString(it, "action_type"),
		ActionKey:     getString(it, "action_key"),
		Result:        getString(it, "result"),
		Resource:      getString(it, "resource"),
		CorrelationID: getString(it, "correlation_id"),
	}
	if d := getString(it, "details"); d != "" {
		r.Details = json.RawMessage(d)
	}
	var err error
	if r.At, err = parseTime(getString(it, "at")); err != nil {
		return audit.Record{}, fmt.Errorf("audit record %s: at: %w", r.ID, err)
	}
	var actor identity.Identity
	if err := json.Unmarshal([]byte(getString(it, "actor")), &actor); err != nil {
		return audit.Record{}, fmt.Errorf("audit record %s: actor: %w", r.ID, err)
	}
	r.Actor = actor
	return r, nil
}
