package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// putRetry stores a row's retry state and occurrences (claimItem's part for them).
func putRetry(it dynamostore.Item, r syncerror.RetryState) {
	if r.Attempts > 0 {
		it["retry_attempts"] = dynamostore.Num(int64(r.Attempts))
	}
	if !r.NextAt.IsZero() {
		it["retry_next_at"] = dynamostore.Str(dynamostore.FormatTime(r.NextAt))
	}
	if !r.HeldUntil.IsZero() {
		it["retry_held_until"] = dynamostore.Str(dynamostore.FormatTime(r.HeldUntil))
	}
	dynamostore.PutOptional(it, "retry_error", r.LastError)
	dynamostore.PutOptional(it, "resolution", r.Resolution)
	dynamostore.PutOptional(it, "signature", r.Signature)
	dynamostore.PutOptional(it, "recurrence_of", r.RecurrenceOf)
	if r.Occurrences > 0 {
		it["occurrences"] = dynamostore.Num(int64(r.Occurrences))
		it["first_seen"] = dynamostore.Str(dynamostore.FormatTime(r.FirstSeen))
		it["last_seen"] = dynamostore.Str(dynamostore.FormatTime(r.LastSeen))
	}
	if len(r.ErrorKeys) > 0 {
		it["error_keys"] = &types.AttributeValueMemberSS{Value: append([]string(nil), r.ErrorKeys...)}
	}
	if len(r.Log) > 0 {
		it["retry_log"] = attemptLog(r.Log)
	}
}

// attemptLog is a row's attempt list as stored: one JSON document, bounded by
// MaxAttemptLog, replaced whole by the holder of an attempt.
func attemptLog(log []syncerror.RetryAttempt) types.AttributeValue {
	b, _ := json.Marshal(log) // plain fields: it marshals
	return dynamostore.Str(string(b))
}

// readRetry reads what putRetry stored.
func readRetry(it dynamostore.Item) (syncerror.RetryState, error) {
	r := syncerror.RetryState{LastError: dynamostore.GetString(it, "retry_error"), Resolution: dynamostore.GetString(it, "resolution"),
		Signature: dynamostore.GetString(it, "signature"), RecurrenceOf: dynamostore.GetString(it, "recurrence_of")}
	var err error
	for _, f := range []struct {
		name string
		dst  *int
	}{{"retry_attempts", &r.Attempts}, {"occurrences", &r.Occurrences}} {
		if _, ok := it[f.name]; !ok {
			continue
		}
		n, err := dynamostore.GetInt(it, f.name)
		if err != nil {
			return r, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = int(n)
	}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{{"retry_next_at", &r.NextAt}, {"retry_held_until", &r.HeldUntil}, {"first_seen", &r.FirstSeen}, {"last_seen", &r.LastSeen}} {
		if s := dynamostore.GetString(it, f.name); s != "" {
			if *f.dst, err = dynamostore.ParseTime(s); err != nil {
				return r, fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	if ss, ok := it["error_keys"].(*types.AttributeValueMemberSS); ok {
		r.ErrorKeys = ss.Value
	}
	if doc := dynamostore.GetString(it, "retry_log"); doc != "" {
		if err := json.Unmarshal([]byte(doc), &r.Log); err != nil {
			return r, fmt.Errorf("retry_log: %w", err)
		}
	}
	return r, nil
}

// ChangeRetry implements RetryStore with one conditional update.
func (s *DynamoClaims) ChangeRetry(ctx context.Context, tenantID, id string, ch syncerror.RetryChange, now time.Time) (syncerror.Claim, error) {
	values := dynamostore.Item{
		":to":    dynamostore.Str(string(ch.To)),
		":skey":  dynamostore.Str(statusKey(tenantID, ch.To)),
		":now":   dynamostore.Str(dynamostore.FormatTime(now)),
		":empty": &types.AttributeValueMemberL{},
		":entry": historyList([]syncerror.HistoryEntry{ch.Entry}),
	}
	var from []string
	for i, st := range ch.From {
		k := ":from" + strconv.Itoa(i)
		values[k] = dynamostore.Str(string(st))
		from = append(from, k)
	}
	cond := "#status IN (" + strings.Join(from, ", ") + ")"
	if !ch.AnyAttempts {
		values[":att"] = dynamostore.Num(int64(ch.Attempts))
		if ch.Attempts == 0 {
			cond += " AND (attribute_not_exists(retry_attempts) OR retry_attempts = :att)"
		} else {
			cond += " AND retry_attempts = :att"
		}
	}
	if syncerror.Reopens(ch.To) {
		// A row whose fix is in the record is never reopened (retrier.go returns a failed
		// retry of one to approved; this holds every other caller to it).
		cond += " AND attribute_not_exists(applied_key)"
	}
	set := []string{"#status = :to", "status_key = :skey", "updated_at = :now",
		"history = list_append(if_not_exists(history, :empty), :entry)"}
	var remove, add []string
	opt := func(name, v string) {
		if v == "" {
			remove = append(remove, name)
			return
		}
		values[":"+name] = dynamostore.Str(v)
		set = append(set, name+" = :"+name)
	}
	if !ch.NextAt.IsZero() {
		opt("retry_next_at", dynamostore.FormatTime(ch.NextAt))
	} else {
		opt("retry_next_at", "")
	}
	opt("retry_error", ch.LastError)
	if ch.Resolution != "" {
		opt("resolution", ch.Resolution)
	}
	if ch.Begin {
		values[":one"] = dynamostore.Num(1)
		add = append(add, "retry_attempts :one")
		opt("retry_held_until", dynamostore.FormatTime(ch.NextAt))
	} else {
		opt("retry_held_until", "")
	}
	if ch.Log != nil {
		values[":log"] = attemptLog(ch.Log)
		set = append(set, "retry_log = :log")
	}
	update := "SET " + strings.Join(set, ", ")
	if len(add) > 0 {
		update += " ADD " + strings.Join(add, ", ")
	}
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}
	if ch.Idle {
		// Two alternatives, not a parenthesised OR: dynalite backtracks on nesting.
		return s.updateRow(ctx, "change retry", tenantID, id, update, values,
			cond+" AND attribute_not_exists(retry_held_until)", cond+" AND retry_held_until < :now")
	}
	return s.updateRow(ctx, "change retry", tenantID, id, update, values, cond)
}

// DueRetries implements RetryStore through the by_status index: retrying rows are few
// (they resolve or return to pending within hours), so the time is a filter; the rows
// found are then read whole (wholeRows).
func (s *DynamoClaims) DueRetries(ctx context.Context, tenantID string, before time.Time, limit int) ([]syncerror.Claim, error) {
	out, err := dynamostore.QueryUpTo(ctx, s.client, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		IndexName:              aws.String(blueprint.IndexByStatus),
		KeyConditionExpression: aws.String("status_key = :k"),
		FilterExpression:       aws.String("retry_next_at <= :before"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(statusKey(tenantID, syncerror.StatusRetrying)),
			":before": dynamostore.Str(dynamostore.FormatTime(before))},
	}, limit, claimFrom)
	if err != nil {
		return nil, fmt.Errorf("due retries of %s: %w", tenantID, err)
	}
	// The index projects when a retry is due, not the attempt log a retry appends to.
	if out, err = s.wholeRows(ctx, tenantID, out); err != nil {
		return nil, err
	}
	syncerror.SortByNextAt(out)
	return out, nil
}
