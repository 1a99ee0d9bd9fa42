package dynamostore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// Claims is the syncerror.ClaimStore on the processed table.
type Claims struct {
	client *dynamodb.Client
	table  string
}

var _ syncerror.ClaimStore = (*Claims)(nil)

// NewClaims returns the store for the physical table name.
func NewClaims(client *dynamodb.Client, table string) *Claims {
	return &Claims{client: client, table: table}
}

func statusKey(tenantID string, s syncerror.Status) string { return tenantID + "#" + string(s) }

func diagnosisKey(tenantID string, d syncerror.Diagnosis) string { return tenantID + "#" + string(d) }

func (s *Claims) key(tenantID, id string) item {
	return item{"tenant_id": str(tenantID), "id": str(id)}
}

func claimItem(c syncerror.Claim) item {
	r := c.Record
	it := item{
		"tenant_id":          str(c.TenantID),
		"id":                 str(c.ID),
		"error_id":           str(r.ErrorID),
		"record_type":        str(r.RecordType),
		"record_id":          str(r.RecordID),
		"error_code":         str(r.ErrorCode),
		"message":            str(r.Message),
		"occurred_at":        str(formatTime(r.OccurredAt)),
		"status":             str(string(c.Status)),
		"status_key":         str(statusKey(c.TenantID, c.Status)),
		"claimed_sort":       str(formatTime(c.ClaimedAt) + "#" + c.ID),
		"diagnosis":          str(string(c.Diagnosis)),
		"diagnosis_key":      str(diagnosisKey(c.TenantID, c.Diagnosis)),
		"diagnosis_since":    str(formatTime(c.DiagnosisSince)),
		"diagnosis_attempts": num(int64(c.DiagnosisAttempts)),
		"source":             str(string(c.Source)),
		"claimed_at":         str(formatTime(c.ClaimedAt)),
		"updated_at":         str(formatTime(c.UpdatedAt)),
	}
	putOptional(it, "integration", r.Integration)
	putOptional(it, "external_system", r.ExternalSystem)
	putOptional(it, "direction", r.Direction)
	putOptional(it, "payload", string(r.Payload))
	putOptional(it, "context", string(r.Context))
	putOptional(it, "webhook_id", c.WebhookID)
	putOptional(it, "diagnosis_error", c.DiagnosisError)
	putOptional(it, "apply_error", c.ApplyError)
	if c.EditedFix != nil {
		b, _ := json.Marshal(c.EditedFix)
		it["edited_fix"] = str(string(b))
	}
	if c.Lease != nil {
		it["lease_token"] = str(c.Lease.Token)
		it["lease_expires_at"] = str(formatTime(c.Lease.ExpiresAt))
	}
	if len(c.History) > 0 {
		it["history"] = historyList(c.History)
	}
	if c.Proposal != nil {
		b, _ := json.Marshal(c.Proposal) // a Proposal always marshals
		it["proposal"] = str(string(b))
	}
	return it
}

func claimFrom(it item) (syncerror.Claim, error) {
	c := syncerror.Claim{
		TenantID: getString(it, "tenant_id"),
		ID:       getString(it, "id"),
		Record: syncerror.Record{
			TenantID:       getString(it, "tenant_id"),
			ErrorID:        getString(it, "error_id"),
			RecordType:     getString(it, "record_type"),
			RecordID:       getString(it, "record_id"),
			ErrorCode:      getString(it, "error_code"),
			Message:        getString(it, "message"),
			Integration:    getString(it, "integration"),
			ExternalSystem: getString(it, "external_system"),
			Direction:      getString(it, "direction"),
		},
		Status:         syncerror.Status(getString(it, "status")),
		Diagnosis:      syncerror.Diagnosis(getString(it, "diagnosis")),
		Source:         syncerror.Source(getString(it, "source")),
		WebhookID:      getString(it, "webhook_id"),
		DiagnosisError: getString(it, "diagnosis_error"),
	}
	c.ApplyError = getString(it, "apply_error")
	if e := getString(it, "edited_fix"); e != "" {
		if err := json.Unmarshal([]byte(e), &c.EditedFix); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: edited_fix: %w", c.ID, err)
		}
	}
	if tok := getString(it, "lease_token"); tok != "" {
		exp, err := parseTime(getString(it, "lease_expires_at"))
		if err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: lease_expires_at: %w", c.ID, err)
		}
		c.Lease = &syncerror.Lease{Token: tok, ExpiresAt: exp}
	}
	if l, ok := it["history"].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			var h syncerror.HistoryEntry
			if sv, ok := v.(*types.AttributeValueMemberS); ok && json.Unmarshal([]byte(sv.Value), &h) == nil {
				c.History = append(c.History, h)
			}
		}
	}
	if p := getString(it, "proposal"); p != "" {
		c.Proposal = &syncerror.Proposal{}
		if err := json.Unmarshal([]byte(p), c.Proposal); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: proposal: %w", c.ID, err)
		}
	}
	if p := getString(it, "payload"); p != "" {
		c.Record.Payload = json.RawMessage(p)
	}
	if p := getString(it, "context"); p != "" {
		c.Record.Context = json.RawMessage(p)
	}
	var err error
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{
		{"occurred_at", &c.Record.OccurredAt},
		{"diagnosis_since", &c.DiagnosisSince},
		{"claimed_at", &c.ClaimedAt},
		{"updated_at", &c.UpdatedAt},
	} {
		if *f.dst, err = parseTime(getString(it, f.name)); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: %s: %w", c.ID, f.name, err)
		}
	}
	attempts, err := getInt(it, "diagnosis_attempts")
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("claim %s: diagnosis_attempts: %w", c.ID, err)
	}
	c.DiagnosisAttempts = int(attempts)
	return c, nil
}

// Claim implements syncerror.ClaimStore with one conditional put.
func (s *Claims) Claim(ctx context.Context, c syncerror.Claim) (bool, error) {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                claimItem(c),
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim %s/%s: %w", c.TenantID, c.ID, err)
	}
	return true, nil
}

// Get implements syncerror.ClaimStore.
func (s *Claims) Get(ctx context.Context, tenantID, id string) (syncerror.Claim, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            s.key(tenantID, id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("get claim %s/%s: %w", tenantID, id, err)
	}
	if out.Item == nil {
		return syncerror.Claim{}, syncerror.ErrNotFound
	}
	return claimFrom(out.Item)
}

// BeginDiagnosis implements syncerror.ClaimStore.
func (s *Claims) BeginDiagnosis(ctx context.Context, tenantID, id string, now, staleBefore time.Time) (syncerror.Claim, error) {
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table),
		Key:       s.key(tenantID, id),
		ConditionExpression: aws.String("attribute_exists(id) AND (diagnosis = :queued OR " +
			"(diagnosis = :diagnosing AND diagnosis_since < :stale))"),
		UpdateExpression: aws.String("SET diagnosis = :diagnosing, diagnosis_key = :dkey, " +
			"diagnosis_since = :now, updated_at = :now ADD diagnosis_attempts :one"),
		ExpressionAttributeValues: item{
			":queued":     str(string(syncerror.DiagnosisQueued)),
			":diagnosing": str(string(syncerror.DiagnosisDiagnosing)),
			":stale":      str(formatTime(staleBefore)),
			":dkey":       str(diagnosisKey(tenantID, syncerror.DiagnosisDiagnosing)),
			":now":        str(formatTime(now)),
			":one":        num(1),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return syncerror.Claim{}, s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("begin diagnosis %s/%s: %w", tenantID, id, err)
	}
	return claimFrom(out.Attributes)
}

// whyNot tells a failed condition on a missing row (ErrNotFound) from one on a row in
// another state (ErrStateChanged). The emulator returns no item with the failure, so read.
func (s *Claims) whyNot(ctx context.Context, tenantID, id string) error {
	if _, err := s.Get(ctx, tenantID, id); err != nil {
		return err
	}
	return syncerror.ErrStateChanged
}

// Stuck implements syncerror.ClaimStore through the by_diagnosis index.
func (s *Claims) Stuck(ctx context.Context, tenantID string, d syncerror.Diagnosis, cutoff time.Time, limit int) ([]syncerror.Claim, error) {
	var out []syncerror.Claim
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		IndexName:              aws.String(blueprint.IndexByDiagnosis),
		KeyConditionExpression: aws.String("diagnosis_key = :k AND diagnosis_since < :cutoff"),
		ExpressionAttributeValues: item{
			":k":      str(diagnosisKey(tenantID, d)),
			":cutoff": str(formatTime(cutoff)),
		},
		ScanIndexForward: aws.Bool(true),
		Limit:            aws.Int32(int32(limit)),
	})
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("stuck claims of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			c, err := claimFrom(it)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// Requeue implements syncerror.ClaimStore.
func (s *Claims) Requeue(ctx context.Context, tenantID, id string, seen syncerror.Diagnosis, seenSince, now time.Time) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.table),
		Key:                 s.key(tenantID, id),
		ConditionExpression: aws.String("diagnosis = :seen AND diagnosis_since = :since"),
		UpdateExpression:    aws.String("SET diagnosis = :queued, diagnosis_key = :qkey, diagnosis_since = :now, updated_at = :now"),
		ExpressionAttributeValues: item{
			":seen":   str(string(seen)),
			":since":  str(formatTime(seenSince)),
			":now":    str(formatTime(now)),
			":queued": str(string(syncerror.DiagnosisQueued)),
			":qkey":   str(diagnosisKey(tenantID, syncerror.DiagnosisQueued)),
		},
	})
	if isConditionFailed(err) {
		return s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return fmt.Errorf("requeue %s/%s: %w", tenantID, id, err)
	}
	return nil
}

// CompleteDiagnosis implements syncerror.ClaimStore.
func (s *Claims) CompleteDiagnosis(ctx context.Context, tenantID, id string, attempt int, p syncerror.Proposal, now time.Time) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return s.endAttempt(ctx, tenantID, id, attempt, syncerror.DiagnosisReady, now,
		"SET proposal = :extra REMOVE diagnosis_error", str(string(b)))
}

// EndDiagnosis implements syncerror.ClaimStore.
func (s *Claims) EndDiagnosis(ctx context.Context, tenantID, id string, attempt int, d syncerror.Diagnosis, reason string, now time.Time) error {
	return s.endAttempt(ctx, tenantID, id, attempt, d, now, "SET diagnosis_error = :extra", str(reason))
}

// endAttempt moves a row out of diagnosing, conditional on the attempt that holds it. clause
// is the rest of the update ("SET x = :extra", optionally followed by "REMOVE y"); it is
// appended after the state change's own SET list.
func (s *Claims) endAttempt(ctx context.Context, tenantID, id string, attempt int, d syncerror.Diagnosis, now time.Time, clause string, extra types.AttributeValue) error {
	update := "SET diagnosis = :d, diagnosis_key = :dkey, diagnosis_since = :now, updated_at = :now, " +
		strings.TrimPrefix(clause, "SET ")
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.table),
		Key:                 s.key(tenantID, id),
		ConditionExpression: aws.String("diagnosis = :diagnosing AND diagnosis_attempts = :attempt"),
		UpdateExpression:    aws.String(update),
		ExpressionAttributeValues: item{
			":d":          str(string(d)),
			":dkey":       str(diagnosisKey(tenantID, d)),
			":now":        str(formatTime(now)),
			":diagnosing": str(string(syncerror.DiagnosisDiagnosing)),
			":attempt":    num(int64(attempt)),
			":extra":      extra,
		},
	})
	if isConditionFailed(err) {
		return s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return fmt.Errorf("end diagnosis %s/%s: %w", tenantID, id, err)
	}
	return nil
}

func historyList(h []syncerror.HistoryEntry) *types.AttributeValueMemberL {
	l := &types.AttributeValueMemberL{}
	for _, e := range h {
		b, _ := json.Marshal(e)
		l.Value = append(l.Value, str(string(b)))
	}
	return l
}

// BeginApply implements syncerror.DecisionStore.
func (s *Claims) BeginApply(ctx context.Context, tenantID, id string, lease syncerror.Lease, edited []syncerror.FieldChange, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	update := "SET #status = :applying, status_key = :skey, lease_token = :tok, lease_expires_at = :exp, updated_at = :now, " +
		"history = list_append(if_not_exists(history, :empty), :entry)"
	values := item{
		":applying": str(string(syncerror.StatusApplying)),
		":pending":  str(string(syncerror.StatusPending)),
		":ready":    str(string(syncerror.DiagnosisReady)),
		":skey":     str(statusKey(tenantID, syncerror.StatusApplying)),
		":tok":      str(lease.Token),
		":exp":      str(formatTime(lease.ExpiresAt)),
		":now":      str(formatTime(now)),
		":empty":    &types.AttributeValueMemberL{},
		":entry":    historyList([]syncerror.HistoryEntry{entry}),
	}
	if edited != nil {
		b, err := json.Marshal(edited)
		if err != nil {
			return syncerror.Claim{}, err
		}
		update += ", edited_fix = :edited"
		values[":edited"] = str(string(b))
	}
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table),
		Key:       s.key(tenantID, id),
		ConditionExpression: aws.String("(#status = :pending AND diagnosis = :ready) OR " +
			"(#status = :applying AND lease_expires_at < :now)"),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return syncerror.Claim{}, s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("begin apply %s/%s: %w", tenantID, id, err)
	}
	return claimFrom(out.Attributes)
}

// FinishApply implements syncerror.DecisionStore.
func (s *Claims) FinishApply(ctx context.Context, tenantID, id, token string, to syncerror.Status, applyErr string, entry syncerror.HistoryEntry, now time.Time) error {
	update := "SET #status = :to, status_key = :skey, updated_at = :now, " +
		"history = list_append(if_not_exists(history, :empty), :entry) REMOVE lease_token, lease_expires_at"
	values := item{
		":to":       str(string(to)),
		":skey":     str(statusKey(tenantID, to)),
		":now":      str(formatTime(now)),
		":applying": str(string(syncerror.StatusApplying)),
		":tok":      str(token),
		":empty":    &types.AttributeValueMemberL{},
		":entry":    historyList([]syncerror.HistoryEntry{entry}),
	}
	if applyErr != "" {
		update = strings.Replace(update, "updated_at = :now, ", "updated_at = :now, apply_error = :err, ", 1)
		values[":err"] = str(applyErr)
	} else {
		update += ", apply_error"
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String("#status = :applying AND lease_token = :tok"),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		return s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return fmt.Errorf("finish apply %s/%s: %w", tenantID, id, err)
	}
	return nil
}

// Decide implements syncerror.DecisionStore.
func (s *Claims) Decide(ctx context.Context, tenantID, id string, to syncerror.Status, entry syncerror.HistoryEntry, now time.Time) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.table),
		Key:                 s.key(tenantID, id),
		ConditionExpression: aws.String("#status = :pending"),
		UpdateExpression: aws.String("SET #status = :to, status_key = :skey, updated_at = :now, " +
			"history = list_append(if_not_exists(history, :empty), :entry)"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: item{
			":pending": str(string(syncerror.StatusPending)),
			":to":      str(string(to)),
			":skey":    str(statusKey(tenantID, to)),
			":now":     str(formatTime(now)),
			":empty":   &types.AttributeValueMemberL{},
			":entry":   historyList([]syncerror.HistoryEntry{entry}),
		},
	})
	if isConditionFailed(err) {
		return s.whyNot(ctx, tenantID, id)
	}
	if err != nil {
		return fmt.Errorf("decide %s/%s: %w", tenantID, id, err)
	}
	return nil
}

// ExpiredLeases implements syncerror.DecisionStore.
func (s *Claims) ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]syncerror.Claim, error) {
	var out []syncerror.Claim
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexByStatus),
		KeyConditionExpression:    aws.String("status_key = :k"),
		FilterExpression:          aws.String("lease_expires_at < :now"),
		ExpressionAttributeValues: item{":k": str(statusKey(tenantID, syncerror.StatusApplying)), ":now": str(formatTime(now))},
	})
	for p.HasMorePages() && len(out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("expired leases of %s: %w", tenantID, err)
		}
		for _, it := range page.Items {
			c, err := claimFrom(it)
			if err != nil {
				return nil, err
			}
			if out = append(out, c); len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// watermarkKey is the item holding a tenant's host ERP poll watermark; it carries none of
// the index attributes, so listings never see it.
func (s *Claims) watermarkKey(tenantID string) item { return s.key(tenantID, "~watermark#hosterp") }

// Watermark implements syncerror.Watermarks.
func (s *Claims) Watermark(ctx context.Context, tenantID string) (time.Time, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: s.watermarkKey(tenantID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return time.Time{}, fmt.Errorf("watermark of %s: %w", tenantID, err)
	}
	return parseTime(getString(out.Item, "watermark"))
}

// AdvanceWatermark implements syncerror.Watermarks.
func (s *Claims) AdvanceWatermark(ctx context.Context, tenantID string, prev, next time.Time) error {
	cond := "watermark = :prev"
	values := item{":next": str(formatTime(next)), ":prev": str(formatTime(prev))}
	if prev.IsZero() {
		cond = "attribute_not_exists(watermark)"
		delete(values, ":prev")
	}
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.watermarkKey(tenantID),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String("SET watermark = :next"),
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("advance watermark of %s: %w", tenantID, err)
	}
	return nil
}
