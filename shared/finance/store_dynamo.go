package finance

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// DynamoStore is the Store on the finance approvals table. Every state change is one
// conditional UpdateItem that returns the row it wrote, so an approve costs one write per
// stage and no reads.
type DynamoStore struct {
	client *dynamodb.Client
	table  string
}

var _ Store = (*DynamoStore)(nil)

// NewDynamoStore returns the store for the physical table name.
func NewDynamoStore(client *dynamodb.Client, table string) *DynamoStore {
	return &DynamoStore{client: client, table: table}
}

func financeStatusKey(tenantID string, s Status) string { return tenantID + "#" + string(s) }

func (s *DynamoStore) key(tenantID, id string) dynamostore.Item {
	return dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "id": dynamostore.Str(id)}
}

// financeNames spares every expression the reserved word "status".
var financeNames = map[string]string{"#status": "status"}

func financeApprovalItem(a Approval) dynamostore.Item {
	it := dynamostore.Item{
		"tenant_id":     dynamostore.Str(a.TenantID),
		"id":            dynamostore.Str(a.ID),
		"entity":        dynamostore.Str(a.Entity),
		"amount":        dynamostore.Str(a.Amount),
		"currency":      dynamostore.Str(a.Currency),
		"vendor":        dynamostore.Str(a.Vendor),
		"status":        dynamostore.Str(string(a.Status)),
		"tenant_status": dynamostore.Str(financeStatusKey(a.TenantID, a.Status)),
		"created_sort":  dynamostore.Str(ListKey(a.CreatedAt, a.ID)),
		"created_at":    dynamostore.Str(dynamostore.FormatTime(a.CreatedAt)),
		"updated_at":    dynamostore.Str(dynamostore.FormatTime(a.UpdatedAt)),
	}
	dynamostore.PutOptional(it, "erp_id", a.ERPID)
	dynamostore.PutOptional(it, "description", a.Description)
	dynamostore.PutOptional(it, "requested_by", a.RequestedBy)
	dynamostore.PutOptional(it, "fields", string(a.Fields))
	dynamostore.PutOptional(it, "last_error", a.LastError)
	dynamostore.PutOptional(it, "decided_by", a.DecidedBy)
	dynamostore.PutOptional(it, "note", a.Note)
	if !a.DecidedAt.IsZero() {
		it["decided_at"] = dynamostore.Str(dynamostore.FormatTime(a.DecidedAt))
	}
	dynamostore.PutOptional(it, "applied_by", a.AppliedBy)
	if !a.AppliedAt.IsZero() {
		it["applied_at"] = dynamostore.Str(dynamostore.FormatTime(a.AppliedAt))
	}
	if a.Lease != nil {
		it["lease_token"] = dynamostore.Str(a.Lease.Token)
		it["lease_expires_at"] = dynamostore.Str(dynamostore.FormatTime(a.Lease.ExpiresAt))
		dynamostore.PutOptional(it, "lease_holder", a.Lease.Holder)
		if !a.Lease.Since.IsZero() {
			it["lease_since"] = dynamostore.Str(dynamostore.FormatTime(a.Lease.Since))
		}
	}
	return it
}

func financeApprovalFrom(it dynamostore.Item) (Approval, error) {
	a := Approval{
		TenantID:    dynamostore.GetString(it, "tenant_id"),
		ID:          dynamostore.GetString(it, "id"),
		ERPID:       dynamostore.GetString(it, "erp_id"),
		Entity:      dynamostore.GetString(it, "entity"),
		Amount:      dynamostore.GetString(it, "amount"),
		Currency:    dynamostore.GetString(it, "currency"),
		Vendor:      dynamostore.GetString(it, "vendor"),
		Description: dynamostore.GetString(it, "description"),
		RequestedBy: dynamostore.GetString(it, "requested_by"),
		Status:      Status(dynamostore.GetString(it, "status")),
		LastError:   dynamostore.GetString(it, "last_error"),
		DecidedBy:   dynamostore.GetString(it, "decided_by"),
		Note:        dynamostore.GetString(it, "note"),
		AppliedBy:   dynamostore.GetString(it, "applied_by"),
	}
	if f := dynamostore.GetString(it, "fields"); f != "" {
		a.Fields = json.RawMessage(f)
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{
		{"created_at", &a.CreatedAt},
		{"updated_at", &a.UpdatedAt},
		{"decided_at", &a.DecidedAt},
		{"applied_at", &a.AppliedAt},
	} {
		if *f.dst, err = dynamostore.ParseTime(dynamostore.GetString(it, f.name)); err != nil {
			return Approval{}, fmt.Errorf("finance approval %s: %s: %w", a.ID, f.name, err)
		}
	}
	if tok := dynamostore.GetString(it, "lease_token"); tok != "" {
		exp, err := dynamostore.ParseTime(dynamostore.GetString(it, "lease_expires_at"))
		if err != nil {
			return Approval{}, fmt.Errorf("finance approval %s: lease_expires_at: %w", a.ID, err)
		}
		since, err := dynamostore.ParseTime(dynamostore.GetString(it, "lease_since"))
		if err != nil {
			return Approval{}, fmt.Errorf("finance approval %s: lease_since: %w", a.ID, err)
		}
		a.Lease = &Lease{Token: tok, ExpiresAt: exp, Holder: dynamostore.GetString(it, "lease_holder"), Since: since}
	}
	return a, nil
}

// Create implements Store with one conditional put.
func (s *DynamoStore) Create(ctx context.Context, a Approval) (bool, error) {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                financeApprovalItem(a),
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create finance approval %s/%s: %w", a.TenantID, a.ID, err)
	}
	return true, nil
}

// Get implements Store.
func (s *DynamoStore) Get(ctx context.Context, tenantID, id string) (Approval, error) {
	it, err := s.item(ctx, tenantID, id)
	if err != nil {
		return Approval{}, err
	}
	return financeApprovalFrom(it)
}

// item reads an approval's item, strongly consistent; ErrNotFound when there is none.
func (s *DynamoStore) item(ctx context.Context, tenantID, id string) (dynamostore.Item, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            s.key(tenantID, id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get finance approval %s/%s: %w", tenantID, id, err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// List implements Store through the by-status index, newest first. The cursor is
// the last row's index sort key, which also names its id.
func (s *DynamoStore) List(ctx context.Context, tenantID string, status Status, limit int, cursor string) (Page, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexFinanceByStatus),
		KeyConditionExpression:    aws.String("tenant_status = :k"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(financeStatusKey(tenantID, status))},
		ScanIndexForward:          aws.Bool(false),
		// One more than asked tells whether another page exists without a second query.
		Limit: aws.Int32(int32(limit + 1)),
	}
	if cursor != "" {
		sortKey, id, err := DecodeCursor(cursor)
		if err != nil {
			return Page{}, err
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "id": dynamostore.Str(id),
			"tenant_status": dynamostore.Str(financeStatusKey(tenantID, status)), "created_sort": dynamostore.Str(sortKey)}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return Page{}, fmt.Errorf("list %s finance approvals of %s: %w", status, tenantID, err)
	}
	var p Page
	for _, it := range out.Items {
		if len(p.Approvals) == limit {
			last := p.Approvals[limit-1]
			p.NextCursor = EncodeCursor(ListKey(last.CreatedAt, last.ID))
			break
		}
		a, err := financeApprovalFrom(it)
		if err != nil {
			return Page{}, err
		}
		p.Approvals = append(p.Approvals, a)
	}
	return p, nil
}

// transition is one conditional state change (update begins with SET) that returns the
// row as written. A write token tells a change the SDK sent again after its first was
// applied (its answer lost) from another writer's: as ErrStateChanged, an accept would be
// answered lease_held by its own lease, and a reject or revert reported as not done.
func (s *DynamoStore) transition(ctx context.Context, op, tenantID, id, cond, update string, values dynamostore.Item) (Approval, error) {
	it, err := dynamostore.UpdateOnce(ctx, s.client, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  financeNames,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	}, dynamostore.NewWriteToken(), ErrNotFound, ErrStateChanged)
	if err != nil {
		return Approval{}, fmt.Errorf("%s finance approval %s/%s: %w", op, tenantID, id, err)
	}
	return financeApprovalFrom(it)
}

// BeginAccept implements Store.
func (s *DynamoStore) BeginAccept(ctx context.Context, tenantID, id string, lease Lease, now time.Time) (Approval, error) {
	return s.takeLease(ctx, "begin accept", tenantID, id, "#status = :pending", lease, now,
		dynamostore.Item{":pending": dynamostore.Str(string(StatusPending))})
}

// TakeOver implements Store.
func (s *DynamoStore) TakeOver(ctx context.Context, tenantID, id, expiredToken string, lease Lease, now time.Time) (Approval, error) {
	return s.takeLease(ctx, "take over", tenantID, id,
		"#status = :applying AND lease_token = :old AND lease_expires_at < :now AND attribute_not_exists(applied_at)", lease, now,
		dynamostore.Item{":old": dynamostore.Str(expiredToken)})
}

// takeLease sets lease on the row if cond holds (values are cond's own).
func (s *DynamoStore) takeLease(ctx context.Context, op, tenantID, id, cond string, lease Lease, now time.Time, values dynamostore.Item) (Approval, error) {
	values[":applying"] = dynamostore.Str(string(StatusApplying))
	values[":skey"] = dynamostore.Str(financeStatusKey(tenantID, StatusApplying))
	values[":tok"] = dynamostore.Str(lease.Token)
	values[":exp"] = dynamostore.Str(dynamostore.FormatTime(lease.ExpiresAt))
	values[":now"] = dynamostore.Str(dynamostore.FormatTime(now))
	values[":holder"] = dynamostore.Str(lease.Holder)
	update := "SET #status = :applying, tenant_status = :skey, lease_token = :tok, lease_expires_at = :exp, lease_holder = :holder, updated_at = :now"
	if lease.Since.IsZero() {
		update += " REMOVE lease_since"
	} else {
		update += ", lease_since = :since"
		values[":since"] = dynamostore.Str(dynamostore.FormatTime(lease.Since))
	}
	return s.transition(ctx, op, tenantID, id, cond, update, values)
}

// CompleteAccept implements Store.
func (s *DynamoStore) CompleteAccept(ctx context.Context, tenantID, id, token, decidedBy string, now time.Time) (Approval, error) {
	return s.transition(ctx, "complete accept", tenantID, id,
		"#status = :applying AND lease_token = :tok",
		"SET #status = :accepted, tenant_status = :skey, decided_by = :by, decided_at = :now, updated_at = :now "+
			"REMOVE lease_token, lease_expires_at, lease_holder, lease_since, last_error",
		dynamostore.Item{
			":applying": dynamostore.Str(string(StatusApplying)),
			":accepted": dynamostore.Str(string(StatusAccepted)),
			":skey":     dynamostore.Str(financeStatusKey(tenantID, StatusAccepted)),
			":tok":      dynamostore.Str(token),
			":by":       dynamostore.Str(decidedBy),
			":now":      dynamostore.Str(dynamostore.FormatTime(now)),
		})
}

// MarkApplied implements Store.
func (s *DynamoStore) MarkApplied(ctx context.Context, tenantID, id, token, by string, at time.Time) error {
	_, err := s.transition(ctx, "mark applied", tenantID, id,
		"#status = :applying AND lease_token = :tok",
		"SET applied_by = :by, applied_at = :at, updated_at = :at",
		dynamostore.Item{
			":applying": dynamostore.Str(string(StatusApplying)),
			":tok":      dynamostore.Str(token),
			":by":       dynamostore.Str(by),
			":at":       dynamostore.Str(dynamostore.FormatTime(at)),
		})
	return err
}

// Revert implements Store.
func (s *DynamoStore) Revert(ctx context.Context, tenantID, id, token, lastError string, now time.Time) error {
	_, err := s.transition(ctx, "revert", tenantID, id,
		"#status = :applying AND lease_token = :tok AND attribute_not_exists(applied_at)",
		"SET #status = :pending, tenant_status = :skey, last_error = :err, updated_at = :now REMOVE lease_token, lease_expires_at, lease_holder, lease_since",
		dynamostore.Item{
			":applying": dynamostore.Str(string(StatusApplying)),
			":pending":  dynamostore.Str(string(StatusPending)),
			":skey":     dynamostore.Str(financeStatusKey(tenantID, StatusPending)),
			":tok":      dynamostore.Str(token),
			":err":      dynamostore.Str(lastError),
			":now":      dynamostore.Str(dynamostore.FormatTime(now)),
		})
	return err
}

// Reject implements Store.
func (s *DynamoStore) Reject(ctx context.Context, tenantID, id, decidedBy, note string, now time.Time) (Approval, error) {
	update := "SET #status = :rejected, tenant_status = :skey, decided_by = :by, decided_at = :now, updated_at = :now"
	values := dynamostore.Item{
		":pending":  dynamostore.Str(string(StatusPending)),
		":rejected": dynamostore.Str(string(StatusRejected)),
		":skey":     dynamostore.Str(financeStatusKey(tenantID, StatusRejected)),
		":by":       dynamostore.Str(decidedBy),
		":now":      dynamostore.Str(dynamostore.FormatTime(now)),
	}
	if note != "" {
		update += ", note = :note"
		values[":note"] = dynamostore.Str(note)
	}
	return s.transition(ctx, "reject", tenantID, id, "#status = :pending", update, values)
}

// ExpiredLeases implements Store: the applying rows of the tenant (few: each is an
// approve in flight or one that died), filtered to expired leases.
func (s *DynamoStore) ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]Approval, error) {
	out, err := dynamostore.QueryUpTo(ctx, s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexFinanceByStatus),
		KeyConditionExpression:    aws.String("tenant_status = :k"),
		FilterExpression:          aws.String("lease_expires_at < :now"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(financeStatusKey(tenantID, StatusApplying)), ":now": dynamostore.Str(dynamostore.FormatTime(now))},
	}, limit, financeApprovalFrom)
	if err != nil {
		return nil, fmt.Errorf("expired finance leases of %s: %w", tenantID, err)
	}
	return out, nil
}
