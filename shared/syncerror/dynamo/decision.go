package dynamo

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
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// BeginApply implements DecisionStore. The lease's fix and key go on the row with it, and
// the edit is set or removed: the row says what this write carries, never an earlier one.
func (s *DynamoClaims) BeginApply(ctx context.Context, tenantID, id string, from syncerror.Status, lease syncerror.Lease, edited []syncerror.FieldChange, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	update := "SET #status = :applying, status_key = :skey, lease_token = :tok, lease_expires_at = :exp, lease_from = :from, updated_at = :now, " +
		"history = list_append(if_not_exists(history, :empty), :entry)"
	values := dynamostore.Item{
		":applying": dynamostore.Str(string(syncerror.StatusApplying)),
		":from":     dynamostore.Str(string(from)),
		":ready":    dynamostore.Str(string(syncerror.DiagnosisReady)),
		":skey":     dynamostore.Str(statusKey(tenantID, syncerror.StatusApplying)),
		":tok":      dynamostore.Str(lease.Token),
		":exp":      dynamostore.Str(dynamostore.FormatTime(lease.ExpiresAt)),
		":now":      dynamostore.Str(dynamostore.FormatTime(now)),
		":empty":    &types.AttributeValueMemberL{},
		":entry":    historyList([]syncerror.HistoryEntry{entry}),
	}
	var remove []string
	for _, f := range []struct {
		name, value string
		fix         []syncerror.FieldChange
	}{{"lease_fix", ":lfix", lease.Fix}, {"edited_fix", ":edited", edited}} {
		if len(f.fix) == 0 {
			remove = append(remove, f.name)
			continue
		}
		b, err := json.Marshal(f.fix)
		if err != nil {
			return syncerror.Claim{}, fmt.Errorf("begin apply %s: %s: %w", id, f.name, err)
		}
		update += ", " + f.name + " = " + f.value
		values[f.value] = dynamostore.Str(string(b))
	}
	if lease.Key != "" {
		// The key and fix name the token they belong to: a Lambda of the version before
		// them ends a lease without removing them, and takes the next without setting
		// them, so a key under another token is that earlier lease's (claimFrom).
		update += ", lease_key = :lkey, lease_key_token = :tok"
		values[":lkey"] = dynamostore.Str(lease.Key)
	} else {
		remove = append(remove, "lease_key", "lease_key_token")
	}
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}
	// No takeover of an applying row: its write may have landed, and the reconcile
	// settles it. A row whose write is marked applied is never taken again.
	return s.updateRow(ctx, "begin apply", tenantID, id, update, values,
		"#status = :from AND diagnosis = :ready AND attribute_not_exists(applied_key)")
}

// updateRow is one conditional update of a row (update starts with SET) that answers the
// row as written; a row the condition refuses answers why (ErrNotFound, ErrStateChanged).
//
// The SDK sends an update again when its answer was lost (a dropped connection, a body
// that failed its checksum), although DynamoDB may have applied it. So each update writes
// a fresh write_token and is refused where the row holds it already: an update applied
// twice is never applied again (a note appended twice, a history entry doubled), and its
// refused retry finds its own token and answers the success it was, never a conflict.
// (Were another update to land between the lost answer and the retry, the retry would be
// told of a conflict: the one case left, and it reports no write that did not happen.)
//
// The condition is any of alts, each a conjunction, and each is given the token's check
// (NOT write_token = :wtok: a comparison with a missing attribute is false, so a row
// without a token passes; DynamoDB's documented rule, and dynalite's and moto's, which the
// tests run on). No group is parenthesised for it: dynalite's expression parser
// backtracks on nested parentheses, and the approve's begin took it 2.8–3.5 ms written as
// "((a AND b) OR (c AND d)) AND (e OR f)", 0.9–1.0 ms as alternatives.
func (s *DynamoClaims) updateRow(ctx context.Context, op, tenantID, id, update string, values dynamostore.Item, alts ...string) (syncerror.Claim, error) {
	checked := make([]string, len(alts))
	for i, a := range alts {
		checked[i] = a + " AND NOT write_token = :wtok"
	}
	cond := strings.Join(checked, " OR ")
	it, err := s.updateOnce(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  statusName(cond + update),
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("%s %s/%s: %w", op, tenantID, id, err)
	}
	return claimFrom(it)
}

// writeToken is 96 random bits in 16 characters: it tells this update from the row's
// others, and it stays on the row, in every later write, where a lease's 32 hex digits
// kept an approved row over 2 KB by 16 bytes (issue 37 §1).
func (s *DynamoClaims) writeToken() string {
	if s.token != nil {
		return s.token()
	}
	return dynamostore.NewWriteToken()
}

// FinishApply implements DecisionStore.
func (s *DynamoClaims) FinishApply(ctx context.Context, tenantID, id, token string, to syncerror.Status, applyErr string, entry syncerror.HistoryEntry, now time.Time) error {
	update := "SET #status = :to, status_key = :skey, updated_at = :now, " +
		"history = list_append(if_not_exists(history, :empty), :entry) REMOVE " + leaseAttrs
	values := dynamostore.Item{
		":to":       dynamostore.Str(string(to)),
		":skey":     dynamostore.Str(statusKey(tenantID, to)),
		":now":      dynamostore.Str(dynamostore.FormatTime(now)),
		":applying": dynamostore.Str(string(syncerror.StatusApplying)),
		":tok":      dynamostore.Str(token),
		":empty":    &types.AttributeValueMemberL{},
		":entry":    historyList([]syncerror.HistoryEntry{entry}),
	}
	if applyErr != "" {
		update = strings.Replace(update, "updated_at = :now, ", "updated_at = :now, apply_error = :err, ", 1)
		values[":err"] = dynamostore.Str(applyErr)
	} else {
		update += ", apply_error"
	}
	cond := "#status = :applying AND lease_token = :tok"
	if to != syncerror.StatusApproved {
		cond += " AND attribute_not_exists(applied_key)"
		if !syncerror.KeepsEdit(entry.Action) {
			// The write did not happen: its edit goes with its lease, so the row's fix is
			// the AI's again, the one a bodyless approve writes (DecisionStore.FinishApply).
			update += ", edited_fix"
		}
	}
	_, err := s.updateRow(ctx, "finish apply", tenantID, id, update, values, cond)
	return err
}

// MarkApplied implements DecisionStore.
func (s *DynamoClaims) MarkApplied(ctx context.Context, tenantID, id, token string, w syncerror.AppliedWrite, now time.Time) error {
	values := dynamostore.Item{
		":applying": dynamostore.Str(string(syncerror.StatusApplying)),
		":tok":      dynamostore.Str(token),
		":now":      dynamostore.Str(dynamostore.FormatTime(now)),
	}
	set, remove, err := appliedClauses(w, values)
	if err != nil {
		return fmt.Errorf("mark applied %s: %w", id, err)
	}
	update := "SET " + set + ", updated_at = :now"
	if remove != "" {
		update += " REMOVE " + remove
	}
	_, err = s.updateRow(ctx, "mark applied", tenantID, id, update, values,
		"#status = :applying AND lease_token = :tok")
	return err
}

// CompleteApply implements DecisionStore: MarkApplied's and FinishApply's (to approved)
// changes in one update under their shared condition, so an approve writes its row three
// times, not four, each write of a 2–3 KB row and of its by_status entry (issue 37 §1).
func (s *DynamoClaims) CompleteApply(ctx context.Context, tenantID, id, token string, w syncerror.AppliedWrite, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	values := dynamostore.Item{
		":to":       dynamostore.Str(string(syncerror.StatusApproved)),
		":skey":     dynamostore.Str(statusKey(tenantID, syncerror.StatusApproved)),
		":applying": dynamostore.Str(string(syncerror.StatusApplying)),
		":tok":      dynamostore.Str(token),
		":now":      dynamostore.Str(dynamostore.FormatTime(now)),
		":empty":    &types.AttributeValueMemberL{},
		":entry":    historyList([]syncerror.HistoryEntry{entry}),
	}
	set, remove, err := appliedClauses(w, values)
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("complete apply %s: %w", id, err)
	}
	if remove != "" {
		remove = ", " + remove
	}
	update := "SET " + set + ", #status = :to, status_key = :skey, updated_at = :now, " +
		"history = list_append(if_not_exists(history, :empty), :entry) REMOVE " + leaseAttrs + ", apply_error" + remove
	return s.updateRow(ctx, "complete apply", tenantID, id, update, values, "#status = :applying AND lease_token = :tok")
}

// leaseAttrs are the attributes of a lease, removed when it ends.
const leaseAttrs = "lease_token, lease_expires_at, lease_from, lease_fix, lease_key, lease_key_token"

// appliedClauses are the SET list of an applied write w (its key, time, prior values,
// written fix and whether its reverts are marked, into values) and the attributes to
// REMOVE ("" when none): those w has none of. A revert's mark is not among them: a write
// is marked applied before any revert of it (MarkRevertSent).
func appliedClauses(w syncerror.AppliedWrite, values dynamostore.Item) (set, remove string, err error) {
	values[":key"] = dynamostore.Str(w.Key)
	values[":at"] = dynamostore.Str(dynamostore.FormatTime(w.At))
	set = "applied_key = :key, applied_at = :at"
	var removed []string
	if w.RevertsMarked {
		values[":rmarked"] = &types.AttributeValueMemberBOOL{Value: true}
		set += ", " + attrRevertsMarked + " = :rmarked"
	} else {
		removed = append(removed, attrRevertsMarked)
	}
	for _, f := range []struct {
		name, value string
		doc         any
		empty       bool
	}{{"applied_prior", ":prior", w.Prior, len(w.Prior) == 0}, {"applied_fix", ":afix", w.Fix, len(w.Fix) == 0}} {
		if f.empty {
			removed = append(removed, f.name)
			continue
		}
		// JSON keeps each value's type: "01067" stays text, absent stays absent.
		b, err := json.Marshal(f.doc)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", f.name, err)
		}
		values[f.value] = dynamostore.Str(string(b))
		set += ", " + f.name + " = " + f.value
	}
	return set, strings.Join(removed, ", "), nil
}

// Decide implements DecisionStore.
func (s *DynamoClaims) Decide(ctx context.Context, tenantID, id string, from, to syncerror.Status, entry syncerror.HistoryEntry, now time.Time) error {
	// A row whose fix is marked applied is never rejected or escalated: the record holds it.
	return s.transition(ctx, "decide", tenantID, id, from, to, entry, now, " AND attribute_not_exists(applied_key)")
}

// transition moves a row from one status to another with a history entry, in one
// conditional write; a row not in from (or failing the flat condition also) answers why.
func (s *DynamoClaims) transition(ctx context.Context, op, tenantID, id string, from, to syncerror.Status, entry syncerror.HistoryEntry, now time.Time, also string) error {
	_, err := s.updateRow(ctx, op, tenantID, id,
		"SET #status = :to, status_key = :skey, updated_at = :now, history = list_append(if_not_exists(history, :empty), :entry)",
		dynamostore.Item{
			":from":  dynamostore.Str(string(from)),
			":to":    dynamostore.Str(string(to)),
			":skey":  dynamostore.Str(statusKey(tenantID, to)),
			":now":   dynamostore.Str(dynamostore.FormatTime(now)),
			":empty": &types.AttributeValueMemberL{},
			":entry": historyList([]syncerror.HistoryEntry{entry}),
		}, "#status = :from"+also)
	return err
}

// ExpiredLeases implements DecisionStore: the by_status index finds them, then one
// BatchGetItem per 100 reads them whole.
func (s *DynamoClaims) ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]syncerror.Claim, error) {
	out, err := dynamostore.QueryUpTo(ctx, s.client, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexByStatus),
		KeyConditionExpression:    aws.String("status_key = :k"),
		FilterExpression:          aws.String("lease_expires_at < :now"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(statusKey(tenantID, syncerror.StatusApplying)), ":now": dynamostore.Str(dynamostore.FormatTime(now))},
	}, limit, claimFrom)
	if err != nil {
		return nil, fmt.Errorf("expired leases of %s: %w", tenantID, err)
	}
	// The index projects the lease's expiry, not the lease nor what it writes.
	return s.wholeRows(ctx, tenantID, out)
}

// statusName names #status for an expression that uses it (DynamoDB refuses names an
// expression does not use; status is a reserved word).
func statusName(expr string) map[string]string {
	if strings.Contains(expr, "#status") {
		return map[string]string{"#status": "status"}
	}
	return nil
}
