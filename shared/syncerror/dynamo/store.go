package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/bounded"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// DynamoClaims is the ClaimStore on the processed table.
type DynamoClaims struct {
	client *dynamodb.Client
	table  string
	// token makes each conditional update's write token (nil: random); tests fix it to
	// send one update twice, as the SDK does after a lost answer.
	token func() string
	// folded are the rows ("tenant\nid") this store created or counted an occurrence on:
	// their next occurrence is counted without the create's put (Fold); true for a row at
	// its key bound (syncerror.MaxErrorKeys), counted without the key at once.
	folded bounded.Map[string, bool]
}

var _ syncerror.ClaimStore = (*DynamoClaims)(nil)

// NewDynamoClaims returns the store for the physical table name.
func NewDynamoClaims(client *dynamodb.Client, table string) *DynamoClaims {
	return &DynamoClaims{client: client, table: table}
}

func statusKey(tenantID string, s syncerror.Status) string { return tenantID + "#" + string(s) }

func diagnosisKey(tenantID string, d syncerror.Diagnosis) string { return tenantID + "#" + string(d) }

func (s *DynamoClaims) key(tenantID, id string) dynamostore.Item {
	return dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "id": dynamostore.Str(id)}
}

func claimItem(c syncerror.Claim) dynamostore.Item {
	r := c.Record
	it := dynamostore.Item{
		"tenant_id":       dynamostore.Str(c.TenantID),
		"id":              dynamostore.Str(c.ID),
		"error_id":        dynamostore.Str(r.ErrorID),
		"record_type":     dynamostore.Str(r.RecordType),
		"record_id":       dynamostore.Str(r.RecordID),
		"error_code":      dynamostore.Str(r.ErrorCode),
		"message":         dynamostore.Str(r.Message),
		"search_ids":      dynamostore.Str(strings.ToLower(r.ErrorID + "\n" + r.RecordID)),
		"search_msg":      dynamostore.Str(strings.ToLower(r.Message)),
		"occurred_at":     dynamostore.Str(dynamostore.FormatTime(r.OccurredAt)),
		"status":          dynamostore.Str(string(c.Status)),
		"status_key":      dynamostore.Str(statusKey(c.TenantID, c.Status)),
		"claimed_sort":    dynamostore.Str(dynamostore.FormatTime(c.ClaimedAt) + "#" + c.ID),
		"diagnosis":       dynamostore.Str(string(c.Diagnosis)),
		"diagnosis_since": dynamostore.Str(dynamostore.FormatTime(c.DiagnosisSince)),
		"source":          dynamostore.Str(string(c.Source)),
		"updated_at":      dynamostore.Str(dynamostore.FormatTime(c.UpdatedAt)),
	}
	// What a row's other attributes hold already is left out, so a new row and its
	// by_status entry stay a kilobyte smaller (issue 37 §1; claimFrom reads them back):
	// claimed_at begins claimed_sort, no attempt is a diagnosis_attempts of 0 (ADD starts
	// from none), and first_seen is claimed_at until a fold says otherwise.
	if c.DiagnosisAttempts > 0 {
		it["diagnosis_attempts"] = dynamostore.Num(int64(c.DiagnosisAttempts))
	}
	if c.Diagnosis.Tracked() { // by_diagnosis is sparse: the reconcile's states only
		it["diagnosis_key"] = dynamostore.Str(diagnosisKey(c.TenantID, c.Diagnosis))
	}
	dynamostore.PutOptional(it, "integration", r.Integration)
	dynamostore.PutOptional(it, "external_system", r.ExternalSystem)
	// The name compared trimmed and without case, as the system filter compares it.
	dynamostore.PutOptional(it, "system_name", strings.ToLower(strings.TrimSpace(r.ExternalSystem)))
	dynamostore.PutOptional(it, "direction", r.Direction)
	dynamostore.PutOptional(it, "payload", string(r.Payload))
	dynamostore.PutOptional(it, "context", string(r.Context))
	// by_status projects the customer ids, not the payload and context they come from.
	if ids := r.CustomerIDs(); len(ids) > 0 {
		it["customer_ids"] = dynamostore.StrList(ids)
	}
	if !claimedBy(c.Source, c.WebhookID, c.History) { // else the first history entry names it
		dynamostore.PutOptional(it, "webhook_id", c.WebhookID)
	}
	dynamostore.PutOptional(it, "diagnosis_error", c.DiagnosisError)
	dynamostore.PutOptional(it, "apply_error", c.ApplyError)
	if c.EditedFix != nil {
		b, _ := json.Marshal(c.EditedFix)
		it["edited_fix"] = dynamostore.Str(string(b))
	}
	if c.Applied != nil {
		it["applied_key"] = dynamostore.Str(c.Applied.Key)
		it["applied_at"] = dynamostore.Str(dynamostore.FormatTime(c.Applied.At))
		if len(c.Applied.Prior) > 0 {
			b, _ := json.Marshal(c.Applied.Prior) // decoded from JSON or read as JSON: it marshals
			it["applied_prior"] = dynamostore.Str(string(b))
		}
		if len(c.Applied.Fix) > 0 {
			b, _ := json.Marshal(c.Applied.Fix)
			it["applied_fix"] = dynamostore.Str(string(b))
		}
		putRevertMarks(it, *c.Applied)
	}
	if c.Lease != nil {
		it["lease_token"] = dynamostore.Str(c.Lease.Token)
		it["lease_expires_at"] = dynamostore.Str(dynamostore.FormatTime(c.Lease.ExpiresAt))
		dynamostore.PutOptional(it, "lease_from", string(c.Lease.From))
		dynamostore.PutOptional(it, "lease_key", c.Lease.Key)
		if c.Lease.Key != "" && !c.Lease.Unbound {
			it["lease_key_token"] = dynamostore.Str(c.Lease.Token)
		}
		if len(c.Lease.Fix) > 0 {
			b, _ := json.Marshal(c.Lease.Fix)
			it["lease_fix"] = dynamostore.Str(string(b))
		}
	}
	if len(c.History) > 0 {
		it["history"] = historyList(c.History)
	}
	putRetry(it, c.Retry)
	if c.Retry.FirstSeen.Equal(c.ClaimedAt) {
		delete(it, "first_seen")
	}
	putTriage(it, c.Triage)
	if c.Proposal != nil {
		listed, more := proposalAttrs(*c.Proposal)
		it["proposal"], it["proposal_more"] = listed, more
	}
	return it
}

func claimFrom(it dynamostore.Item) (syncerror.Claim, error) {
	c := syncerror.Claim{
		TenantID: dynamostore.GetString(it, "tenant_id"),
		ID:       dynamostore.GetString(it, "id"),
		Record: syncerror.Record{
			TenantID:       dynamostore.GetString(it, "tenant_id"),
			ErrorID:        dynamostore.GetString(it, "error_id"),
			RecordType:     dynamostore.GetString(it, "record_type"),
			RecordID:       dynamostore.GetString(it, "record_id"),
			ErrorCode:      dynamostore.GetString(it, "error_code"),
			Message:        dynamostore.GetString(it, "message"),
			Integration:    dynamostore.GetString(it, "integration"),
			ExternalSystem: dynamostore.GetString(it, "external_system"),
			Direction:      dynamostore.GetString(it, "direction"),
		},
		CustomerIDs:    dynamostore.GetStrList(it, "customer_ids"),
		Status:         syncerror.Status(dynamostore.GetString(it, "status")),
		Diagnosis:      syncerror.Diagnosis(dynamostore.GetString(it, "diagnosis")),
		Source:         syncerror.Source(dynamostore.GetString(it, "source")),
		WebhookID:      dynamostore.GetString(it, "webhook_id"),
		DiagnosisError: dynamostore.GetString(it, "diagnosis_error"),
	}
	c.ApplyError = dynamostore.GetString(it, "apply_error")
	var err error
	if c.Retry, err = readRetry(it); err != nil {
		return syncerror.Claim{}, fmt.Errorf("claim %s: %w", c.ID, err)
	}
	if c.Triage, err = readTriage(it); err != nil {
		return syncerror.Claim{}, fmt.Errorf("claim %s: %w", c.ID, err)
	}
	if e := dynamostore.GetString(it, "edited_fix"); e != "" {
		if err := jsonvalue.Unmarshal([]byte(e), &c.EditedFix); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: edited_fix: %w", c.ID, err)
		}
	}
	if key := dynamostore.GetString(it, "applied_key"); key != "" {
		at, err := dynamostore.ParseTime(dynamostore.GetString(it, "applied_at"))
		if err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: applied_at: %w", c.ID, err)
		}
		c.Applied = &syncerror.AppliedWrite{Key: key, At: at}
		if p := dynamostore.GetString(it, "applied_prior"); p != "" {
			if err := jsonvalue.Unmarshal([]byte(p), &c.Applied.Prior); err != nil {
				return syncerror.Claim{}, fmt.Errorf("claim %s: applied_prior: %w", c.ID, err)
			}
		}
		if f := dynamostore.GetString(it, "applied_fix"); f != "" {
			if err := jsonvalue.Unmarshal([]byte(f), &c.Applied.Fix); err != nil {
				return syncerror.Claim{}, fmt.Errorf("claim %s: applied_fix: %w", c.ID, err)
			}
		}
		if err := readRevertMarks(it, c.Applied); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: %w", c.ID, err)
		}
	}
	if tok := dynamostore.GetString(it, "lease_token"); tok != "" {
		exp, err := dynamostore.ParseTime(dynamostore.GetString(it, "lease_expires_at"))
		if err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: lease_expires_at: %w", c.ID, err)
		}
		c.Lease = &syncerror.Lease{Token: tok, ExpiresAt: exp, From: syncerror.Status(dynamostore.GetString(it, "lease_from")),
			Key: dynamostore.GetString(it, "lease_key")}
		// A key stored under another token, or none (by the version that kept the key
		// without its token), may be an earlier lease's: see BeginApply.
		c.Lease.Unbound = c.Lease.Key != "" && dynamostore.GetString(it, "lease_key_token") != tok
		if f := dynamostore.GetString(it, "lease_fix"); f != "" {
			if err := jsonvalue.Unmarshal([]byte(f), &c.Lease.Fix); err != nil {
				return syncerror.Claim{}, fmt.Errorf("claim %s: lease_fix: %w", c.ID, err)
			}
		}
	}
	c.History = historyFrom(it)
	if c.WebhookID == "" && c.Source == syncerror.SourceWebhook && len(c.History) > 0 && c.History[0].Action == "claimed" {
		c.WebhookID = strings.TrimPrefix(c.History[0].Actor, webhookActor)
	}
	if c.Proposal, err = proposalFrom(it); err != nil {
		return syncerror.Claim{}, fmt.Errorf("claim %s: %w", c.ID, err)
	}
	if p := dynamostore.GetString(it, "payload"); p != "" {
		c.Record.Payload = json.RawMessage(p)
	}
	if p := dynamostore.GetString(it, "context"); p != "" {
		c.Record.Context = json.RawMessage(p)
	}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{
		{"occurred_at", &c.Record.OccurredAt},
		{"diagnosis_since", &c.DiagnosisSince},
		{"claimed_at", &c.ClaimedAt},
		{"updated_at", &c.UpdatedAt},
	} {
		v := dynamostore.GetString(it, f.name)
		if v == "" && f.name == "claimed_at" { // a row written without it (claimItem)
			v, _, _ = strings.Cut(dynamostore.GetString(it, "claimed_sort"), "#")
		}
		if *f.dst, err = dynamostore.ParseTime(v); err != nil {
			return syncerror.Claim{}, fmt.Errorf("claim %s: %s: %w", c.ID, f.name, err)
		}
	}
	if c.Retry.Occurrences > 0 && c.Retry.FirstSeen.IsZero() {
		c.Retry.FirstSeen = c.ClaimedAt
	}
	attempts, err := dynamostore.GetInt(it, "diagnosis_attempts")
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("claim %s: diagnosis_attempts: %w", c.ID, err)
	}
	c.DiagnosisAttempts = int(attempts)
	if err := readHeld(it, &c); err != nil {
		return syncerror.Claim{}, err
	}
	return c, nil
}

// webhookActor begins the actor of a webhook row's first history entry, the webhook-id
// following it (syncerror.NewClaim).
const webhookActor = "webhook:"

// claimedBy tells whether history begins with the claim of a webhook row by webhookID,
// which then need not be stored again (36 bytes of every write of the row; claimFrom
// reads it from there).
func claimedBy(source syncerror.Source, webhookID string, h []syncerror.HistoryEntry) bool {
	return source == syncerror.SourceWebhook && webhookID != "" && len(h) > 0 && h[0].Action == "claimed" &&
		h[0].Actor == webhookActor+webhookID
}

// Claim implements ClaimStore with one conditional put.
func (s *DynamoClaims) Claim(ctx context.Context, c syncerror.Claim) (bool, error) {
	return s.putNew(ctx, c, "")
}

// putNew puts c unless its row exists (false), carrying write token tok when one is given
// (the fold's create: Fold).
func (s *DynamoClaims) putNew(ctx context.Context, c syncerror.Claim, tok string) (bool, error) {
	it := claimItem(c)
	if tok != "" {
		it[dynamostore.WriteTokenAttribute] = dynamostore.Str(tok)
	}
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                it,
		ConditionExpression: aws.String("attribute_not_exists(id)"),
	})
	if dynamostore.IsConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim %s/%s: %w", c.TenantID, c.ID, err)
	}
	return true, nil
}

// Get implements ClaimStore.
func (s *DynamoClaims) Get(ctx context.Context, tenantID, id string) (syncerror.Claim, error) {
	it, err := s.getItem(ctx, tenantID, id)
	if err != nil {
		return syncerror.Claim{}, err
	}
	return claimFrom(it)
}

// getItem reads a row as stored (strongly consistent); ErrNotFound when there is none.
func (s *DynamoClaims) getItem(ctx context.Context, tenantID, id string) (dynamostore.Item, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            s.key(tenantID, id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get claim %s/%s: %w", tenantID, id, err)
	}
	if out.Item == nil {
		return nil, syncerror.ErrNotFound
	}
	return out.Item, nil
}

// watermarkKey is the item holding a tenant's host ERP poll watermark; it carries none of
// the index attributes, so listings never see it.
func (s *DynamoClaims) watermarkKey(tenantID string) dynamostore.Item {
	return s.key(tenantID, "~watermark#hosterp")
}

// Watermark implements Watermarks.
func (s *DynamoClaims) Watermark(ctx context.Context, tenantID string) (time.Time, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: s.watermarkKey(tenantID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return time.Time{}, fmt.Errorf("watermark of %s: %w", tenantID, err)
	}
	return dynamostore.ParseTime(dynamostore.GetString(out.Item, "watermark"))
}

// AdvanceWatermark implements Watermarks.
func (s *DynamoClaims) AdvanceWatermark(ctx context.Context, tenantID string, prev, next time.Time) error {
	cond := "watermark = :prev"
	values := dynamostore.Item{":next": dynamostore.Str(dynamostore.FormatTime(next)), ":prev": dynamostore.Str(dynamostore.FormatTime(prev))}
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
	if dynamostore.IsConditionFailed(err) {
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("advance watermark of %s: %w", tenantID, err)
	}
	return nil
}
