package dynamostore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
)

// Finance is the finance.Store on the finance approvals table. Every state change is one
// conditional UpdateItem that returns the row it wrote, so an approve costs one write per
// stage and no reads.
type Finance struct {
	client *dynamodb.Client
	table  string
}

var _ finance.Store = (*Finance)(nil)

// NewFinance returns the store for the physical table name.
func NewFinance(client *dynamodb.Client, table string) *Finance {
	return &Finance{client: client, table: table}
}

func financeStatusKey(tenantID string, s finance.Status) string { return tenantID + "#" + string(s) }

func (s *Finance) key(tenantID, id string) item {
	return item{"tenant_id": str(tenantID), "id": str(id)}
}

// financeNames spares every expression the reserved word "status".
var financeNames = map[string]string{"#status": "status"}

func financeApprovalItem(a finance.Approval) item {
	it := item{
		"tenant_id":     str(a.TenantID),
		"id":            str(a.ID),
		"entity":        str(a.Entity),
		"amount":        str(a.Amount),
		"currency":      str(a.Currency),
		"vendor":        str(a.Vendor),
		"status":        str(string(a.Status)),
		"tenant_status": str(financeStatusKey(a.TenantID, a.Status)),
		"created_sort":  str(finance.ListKey(a.CreatedAt, a.ID)),
		"created_at":    str(formatTime(a.CreatedAt)),
		"updated_at":    str(formatTime(a.UpdatedAt)),
	}
	putOptional(it, "erp_id", a.ERPID)
	putOptional(it, "description", a.Description)
	putOptional(it, "requested_by", a.RequestedBy)
	putOptional(it, "fields", string(a.Fields))
	putOptional(it, "last_error", a.LastError)
	putOptional(it, "decided_by", a.DecidedBy)
	putOptional(it, "note", a.Note)
	if !a.DecidedAt.IsZero() {
		it["decided_at"] = str(formatTime(a.DecidedAt))
	}
	if a.Lease != nil {
		it["lease_token"] = str(a.Lease.Token)
		it["lease_expires_at"] = str(formatTime(a.Lease.ExpiresAt))
	}
	return it
}

func financeApprovalFrom(it item) (finance.Approval, error) {
	a := finance.Approval{
		TenantID:    getString(it, "tenant_id"),
		ID:          getString(it, "id"),
		ERPID:       getString(it, "erp_id"),
		Entity:      getString(it, "entity"),
		Amount:      getString(it, "amount"),
		Currency:    getString(it, "currency"),
		Vendor:      getString(it, "vendor"),
		Description: getString(it, "description"),
		RequestedBy: getString(it, "requested_by"),
		Status:      finance.Status(getString(it, "status")),
		LastError:   getString(it, "last_error"),
		DecidedBy:   getString(it, "decided_by"),
		Note:        getString(it, "note"),
	}
	if f := getString(it, "fields"); f != "" {
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
	} {
		if *f.dst, err = parseTime(getString(it, f.name)); err != nil {
			return finance.Approval{}, fmt.Errorf("finance approval %s: %s: %w", a.ID, f.name, err)
		}
	}
	if tok := getString(it, "lease_token"); tok != "" {
		exp, err := parseTime(getString(it, "lease_expires_at"))
		if err != nil {
			return finance.Approval{}, fmt.Errorf("finance approval %s: lease_expires_at: %w", a.ID, err)
		}
		a.Lease = &finance.Lease{Token: tok, ExpiresAt: exp}
	}
	return a, nil
}

// Create implements finance.Store with one conditional put.
func (s *Finance) Create(ctx context.Context, a finance.Approval) (bool, error) {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                financeApprovalItem(a),
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create finance approval %s/%s: %w", a.TenantID, a.ID, err)
	}
	return true, nil
}

// Get implements finance.Store.
func (s *Finance) Get(ctx context.Context, tenantID, id string) (finance.Approval, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            s.key(tenantID, id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return finance.Approval{}, fmt.Errorf("get finance approval %s/%s: %w", tenantID, id, err)
	}
	if out.Item == nil {
		return finance.Approval{}, finance.ErrNotFound
	}
	return financeApprovalFrom(out.Item)
}

// whyNot tells a failed condition on a missing row (ErrNotFound) from one on a row in
// another state (ErrStateChanged). The emulator returns no item with the failure, so read.
func (s *Finance) whyNot(ctx context.Context, tenantID, id string) error {
	if _, err := s.Get(ctx, tenantID, id); err != nil {
		return err
	}
	return finance.ErrStateChanged
}

// List implements finance.Store through the by-status index, newest first. The cursor is
// the last row's index sort key, which also names its id.
func (s *Finance) List(ctx context.Context, tenantID string, status finance.Status, limit int, cursor string) (finance.Page, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexFinanceByStatus),
		KeyConditionExpression:    aws.String("tenant_status = :k"),
		ExpressionAttributeValues: item{":k": str(financeStatusKey(tenantID, status))},
		ScanIndexForward:          aws.Bool(false),
		// One more than asked tells whether another page exists without a second query.
		Limit: aws.Int32(int32(limit + 1)),
	}
	if cursor != "" {
		sortKey, id, err := finance.DecodeCursor(cursor)
		if err != nil {
			return finance.Page{}, err
		}
		in.ExclusiveStartKey = item{"tenant_id": str(tenantID), "id": str(id),
			"tenant_status": str(financeStatusKey(tenantID, status)), "created_sort": str(sortKey)}
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return finance.Page{}, fmt.Errorf("list %s finance approvals of %s: %w", status, tenantID, err)
	}
	var p finance.Page
	for _, it := range out.Items {
		if len(p.Approvals) == limit {
			last := p.Approvals[limit-1]
			p.NextCursor = finance.EncodeCursor(finance.ListKey(last.CreatedAt, last.ID))
			break
		}
		a, err := financeApprovalFrom(it)
		if err != nil {
			return finance.Page{}, err
		}
		p.Approvals = append(p.Approvals, a)
	}
	return p, nil
}

// transition is one conditional state change that returns the row as written.
func (s *Finance) transition(ctx context.Context, op, tenantID, id, cond, update string, values item) (finance.Approval, error) {
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  financeNames,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return finance.Approval{}, s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return finance.Approval{}, fmt.Errorf("%s finance approval %s/%s: %w", op, tenantID, id, err)
	}
	return financeApprovalFrom(out.Attributes)
}

// BeginAccept implements finance.Store.
func (s *Finance) BeginAccept(ctx context.Context, tenantID, id string, lease finance.Lease, now time.Time) (finance.Approval, error) {
	return s.transition(ctx, "begin accept", tenantID, id,
		"attribute_exists(id) AND (#status = :pending OR (#status = :applying AND lease_expires_at < :now))",
		"SET #status = :applying, tenant_status = :skey, lease_token = :tok, lease_expires_at = :exp, updated_at = :now",
		item{
			":pending":  str(string(finance.StatusPending)),
			":applying": str(string(finance.StatusApplying)),
			":skey":     str(financeStatusKey(tenantID, finance.StatusApplying)),
			":tok":      str(lease.Token),
			":exp":      str(formatTime(lease.ExpiresAt)),
			":now":      str(formatTime(now)),
		})
}

// CompleteAccept implements finance.Store.
func (s *Finance) CompleteAccept(ctx context.Context, tenantID, id, token, decidedBy string, now time.Time) (finance.Approval, error) {
	return s.transition(ctx, "complete accept", tenantID, id,
		"#status = :applying AND lease_token = :tok",
		"SET #status = :accepted, tenant_status = :skey, decided_by = :by, decided_at = :now, updated_at = :now "+
			"REMOVE lease_token, lease_expires_at, last_error",
		item{
			":applying": str(string(finance.StatusApplying)),
			":accepted": str(string(finance.StatusAccepted)),
			":skey":     str(financeStatusKey(tenantID, finance.StatusAccepted)),
			":tok":      str(token),
			":by":       str(decidedBy),
			":now":      str(formatTime(now)),
		})
}

// Revert implements finance.Store.
func (s *Finance) Revert(ctx context.Context, tenantID, id, token, lastError string, now time.Time) error {
	_, err := s.transition(ctx, "revert", tenantID, id,
		"#status = :applying AND lease_token = :tok",
		"SET #status = :pending, tenant_status = :skey, last_error = :err, updated_at = :now REMOVE lease_token, lease_expires_at",
		item{
			":applying": str(string(finance.StatusApplying)),
			":pending":  str(string(finance.StatusPending)),
			":skey":     str(financeStatusKey(tenantID, finance.StatusPending)),
			":tok":      str(token),
			":err":      str(lastError),
			":now":      str(formatTime(now)),
		})
	return err
}

// Reject implements finance.Store.
func (s *Finance) Reject(ctx context.Context, tenantID, id, decidedBy, note string, now time.Time) (finance.Approval, error) {
	update := "SET #status = :rejected, tenant_status = :skey, decided_by = :by, decided_at = :now, updated_at = :now"
	values := item{
		":pending":  str(string(finance.StatusPending)),
		":rejected": str(string(finance.StatusRejected)),
		":skey":     str(financeStatusKey(tenantID, finance.StatusRejected)),
		":by":       str(decidedBy),
		":now":      str(formatTime(now)),
	}
	if note != "" {
		update += ", note = :note"
		values[":note"] = str(note)
	}
	return s.transition(ctx, "reject", tenantID, id, "#status = :pending", update, values)
}

// ExpiredLeases implements finance.Store: the applying rows of the tenant (few: each is an
// approve in flight or one that died), filtered to expired leases.
func (s *Finance) ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]finance.Approval, error) {
	var out []finance.Approval
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexFinanceByStatus),
		KeyConditionExpression:    aws.String("tenant_status = :k"),
		FilterExpression:          aws.String("lease_expires_at < :now"),
		ExpressionAttributeValues: item{":k": str(financeStatusKey(tenantID, finance.StatusApplying)), ":now": str(formatTime(now))},
	})
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("expired finance leases of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			a, err := financeApprovalFrom(it)
			if err != nil {
				return nil, err
			}
			if out = append(out, a); len(out) == limit {
				break
			}
		}
	}
	return out, nil
}
