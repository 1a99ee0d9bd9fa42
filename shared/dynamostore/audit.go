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

func auditSort(r audit.Record) string { return FormatTime(r.At) + "#" + r.ID }

// Put implements audit.Store. Records are immutable: a put never overwrites.
func (s *Audit) Put(ctx context.Context, r audit.Record) error {
	actor, err := json.Marshal(r.Actor)
	if err != nil {
		return err
	}
	it := Item{
		"tenant_id":     Str(r.TenantID),
		"sort":          Str(auditSort(r)),
		"tenant_action": Str(r.TenantID + "#" + r.ActionType),
		"id":            Str(r.ID),
		"at":            Str(FormatTime(r.At)),
		"actor":         Str(string(actor)),
		"action_type":   Str(r.ActionType),
		"action_key":    Str(r.ActionKey),
		"result":        Str(r.Result),
	}
	PutOptional(it, "resource", r.Resource)
	PutOptional(it, "correlation_id", r.CorrelationID)
	PutOptional(it, "details", string(r.Details))
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
		ExpressionAttributeValues: Item{
			":from": Str(FormatTime(q.From)),
			// "<to>" sorts before "<to>#id", so records at exactly To are excluded.
			":to": Str(FormatTime(q.To)),
		},
	}
	pk, pkValue := "tenant_id", q.TenantID
	if q.ActionType != "" {
		in.IndexName = aws.String(blueprint.IndexByActionType)
		pk, pkValue = "tenant_action", q.TenantID+"#"+q.ActionType
	}
	in.KeyConditionExpression = aws.String(pk + " = :pk AND #sort BETWEEN :from AND :to")
	in.ExpressionAttributeNames = map[string]string{"#sort": "sort"}
	in.ExpressionAttributeValues[":pk"] = Str(pkValue)
	if q.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
		if err != nil || len(raw) < len(timeLayout) {
			return audit.Page{}, audit.ErrBadCursor
		}
		if _, err := ParseTime(string(raw[:len(timeLayout)])); err != nil {
			return audit.Page{}, audit.ErrBadCursor
		}
		start := Item{"tenant_id": Str(q.TenantID), "sort": Str(string(raw))}
		if q.ActionType != "" {
			start["tenant_action"] = Str(pkValue)
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

func auditFrom(it Item) (audit.Record, error) {
	r := audit.Record{
		TenantID:      GetString(it, "tenant_id"),
		ID:            GetString(it, "id"),
		ActionType:    GetString(it, "action_type"),
		ActionKey:     GetString(it, "action_key"),
		Result:        GetString(it, "result"),
		Resource:      GetString(it, "resource"),
		CorrelationID: GetString(it, "correlation_id"),
	}
	if d := GetString(it, "details"); d != "" {
		r.Details = json.RawMessage(d)
	}
	var err error
	if r.At, err = ParseTime(GetString(it, "at")); err != nil {
		return audit.Record{}, fmt.Errorf("audit record %s: at: %w", r.ID, err)
	}
	var actor identity.Identity
	if err := json.Unmarshal([]byte(GetString(it, "actor")), &actor); err != nil {
		return audit.Record{}, fmt.Errorf("audit record %s: actor: %w", r.ID, err)
	}
	r.Actor = actor
	return r, nil
}
