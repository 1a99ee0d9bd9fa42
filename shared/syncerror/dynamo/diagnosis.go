package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A diagnosis attempt holds its row by the row's held_at, which no index reads (issue
// 37 §1). The stored diagnosis stays "queued" while a worker holds the row, and its
// by_diagnosis entry (key tenant#queued, sort diagnosis_since: when it was queued) stays
// where the ingest put it, so taking a row writes the row alone: 1 WRU, where setting
// diagnosis to "diagnosing" moved the by_diagnosis entry (a delete and a put) and rewrote
// the by_status entry (diagnosis and updated_at are listed): 4. claimFrom reads a held row
// as diagnosing since held_at, so every reader of the row itself (Get, the worker,
// the reconcile) sees the states it saw before; the queue's listing, read from by_status,
// shows a held row as queued until its diagnosis ends (to an operator both mean "waiting
// for its diagnosis"). Rows taken before held_at existed hold diagnosis "diagnosing"
// under their own by_diagnosis key; every condition below accepts both shapes.
const attrHeldAt = "held_at"

// heldAt is a hold's time as stored: Unix nanoseconds, a number of 11 bytes where the
// row's RFC 3339 times take 30 (the sample row, 978 bytes when queued, stays within the
// kilobyte its begin is billed at).
func heldAt(t time.Time) types.AttributeValue { return dynamostore.Num(t.UnixNano()) }

// readHeld makes a held row's claim diagnosing since the attempt took it.
func readHeld(it dynamostore.Item, c *syncerror.Claim) error {
	if _, held := it[attrHeldAt]; !held || !c.Diagnosis.Tracked() {
		return nil
	}
	ns, err := dynamostore.GetInt(it, attrHeldAt)
	if err != nil {
		return fmt.Errorf("claim %s: %s: %w", c.ID, attrHeldAt, err)
	}
	c.Diagnosis, c.DiagnosisSince = syncerror.DiagnosisDiagnosing, time.Unix(0, ns).UTC()
	return nil
}

// BeginDiagnosis implements ClaimStore.
func (s *DynamoClaims) BeginDiagnosis(ctx context.Context, tenantID, id string, now, staleBefore time.Time) (syncerror.Claim, error) {
	it, err := s.updateOnce(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table),
		Key:       s.key(tenantID, id),
		// One level of parentheses: dynalite's expression parser backtracks, and the same
		// condition nested three deep took it 28 ms an update where this takes 2. (A
		// missing row has no diagnosis, so no clause holds for it.)
		ConditionExpression: aws.String("(diagnosis IN (:queued, :diagnosing) AND held_at < :staleNs) OR " +
			"(diagnosis = :queued AND attribute_not_exists(held_at)) OR " +
			"(diagnosis = :diagnosing AND attribute_not_exists(held_at) AND diagnosis_since < :stale)"),
		UpdateExpression: aws.String("SET held_at = :now ADD diagnosis_attempts :one"),
		ExpressionAttributeValues: dynamostore.Item{
			":queued":     dynamostore.Str(string(syncerror.DiagnosisQueued)),
			":diagnosing": dynamostore.Str(string(syncerror.DiagnosisDiagnosing)),
			":stale":      dynamostore.Str(dynamostore.FormatTime(staleBefore)),
			":staleNs":    heldAt(staleBefore),
			":now":        heldAt(now),
			":one":        dynamostore.Num(1),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		return syncerror.Claim{}, fmt.Errorf("begin diagnosis %s/%s: %w", tenantID, id, err)
	}
	return claimFrom(it)
}

// updateOnce makes one conditional write of a row (dynamostore.UpdateOnce) and says why
// its condition failed: ErrNotFound for a missing row, ErrStateChanged for another
// writer's change. Many of these writes make their own condition false, so the write token
// is what tells the SDK's resend of a write already applied (its answer lost) from a
// conflict: as ErrStateChanged, a diagnosis would be dropped as overtaken, its automation
// skipped, or a claim left held until the reconcile.
func (s *DynamoClaims) updateOnce(ctx context.Context, in *dynamodb.UpdateItemInput) (dynamostore.Item, error) {
	return dynamostore.UpdateOnce(ctx, s.client, in, s.writeToken(), syncerror.ErrNotFound, syncerror.ErrStateChanged)
}

// Stuck implements ClaimStore through the by_diagnosis index, which is sparse (only a
// claim in a tracked state carries its key, see endAttempt) and projects keys only. A
// queued row's entry stays under the queued key while a worker holds it, so the index
// names the candidates (queued before cutoff; for diagnosing also the rows taken before
// held_at existed) and the rows, read in one BatchGetItem per page, say which are
// in state d since before cutoff. The answer is oldest first by that time.
func (s *DynamoClaims) Stuck(ctx context.Context, tenantID string, d syncerror.Diagnosis, cutoff time.Time, limit int) ([]syncerror.Claim, error) {
	if !d.Tracked() {
		return nil, syncerror.ErrUntracked
	}
	keys := []string{diagnosisKey(tenantID, syncerror.DiagnosisQueued)}
	if d == syncerror.DiagnosisDiagnosing {
		keys = append(keys, diagnosisKey(tenantID, d))
	}
	var out []syncerror.Claim
	for _, k := range keys {
		if err := s.stuckUnder(ctx, tenantID, k, d, cutoff, limit, &out); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b syncerror.Claim) int { return a.DiagnosisSince.Compare(b.DiagnosisSince) })
	return out, nil
}

// stuckUnder appends to out, up to limit, the rows under one by_diagnosis key that are in
// state d since before cutoff.
func (s *DynamoClaims) stuckUnder(ctx context.Context, tenantID, key string, d syncerror.Diagnosis, cutoff time.Time,
	limit int, out *[]syncerror.Claim) error {
	p := dynamodb.NewQueryPaginator(s.client, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		IndexName:              aws.String(blueprint.IndexByDiagnosis),
		KeyConditionExpression: aws.String("diagnosis_key = :k AND diagnosis_since < :cutoff"),
		ExpressionAttributeValues: dynamostore.Item{
			":k":      dynamostore.Str(key),
			":cutoff": dynamostore.Str(dynamostore.FormatTime(cutoff)),
		},
		ScanIndexForward: aws.Bool(true),
		Limit:            aws.Int32(int32(min(limit, dynamostore.MaxBatchGet))),
	})
	for p.HasMorePages() && len(*out) < limit {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("stuck claims of %s: %w", tenantID, err)
		}
		rows, err := s.rowsOf(ctx, tenantID, page.Items)
		if err != nil {
			return err
		}
		for _, c := range rows {
			if c.Diagnosis == d && c.DiagnosisSince.Before(cutoff) && len(*out) < limit {
				*out = append(*out, c)
			}
		}
	}
	return nil
}

// rowsOf reads the rows that index entries name, in the entries' order.
func (s *DynamoClaims) rowsOf(ctx context.Context, tenantID string, entries []dynamostore.Item) ([]syncerror.Claim, error) {
	keys := make([]dynamostore.Item, len(entries))
	for i, e := range entries {
		keys[i] = s.key(tenantID, dynamostore.GetString(e, "id"))
	}
	items, err := dynamostore.BatchGet(ctx, s.client, s.table, keys)
	if err != nil {
		return nil, fmt.Errorf("stuck claims of %s: %w", tenantID, err)
	}
	byID := make(map[string]syncerror.Claim, len(items))
	for _, it := range items {
		c, err := claimFrom(it)
		if err != nil {
			return nil, err
		}
		byID[c.ID] = c
	}
	var rows []syncerror.Claim
	for _, k := range keys {
		if c, ok := byID[dynamostore.GetString(k, "id")]; ok {
			rows = append(rows, c)
		}
	}
	return rows, nil
}

// Requeue implements ClaimStore. A row is seen diagnosing since its held_at, or (taken
// before that attribute existed) its diagnosis_since; seen queued, only while no attempt
// holds it.
func (s *DynamoClaims) Requeue(ctx context.Context, tenantID, id string, seen syncerror.Diagnosis, seenSince, now time.Time) error {
	values := dynamostore.Item{
		":seen":   dynamostore.Str(string(seen)),
		":since":  dynamostore.Str(dynamostore.FormatTime(seenSince)),
		":now":    dynamostore.Str(dynamostore.FormatTime(now)),
		":queued": dynamostore.Str(string(syncerror.DiagnosisQueued)),
		":qkey":   dynamostore.Str(diagnosisKey(tenantID, syncerror.DiagnosisQueued)),
	}
	cond := "diagnosis = :seen AND diagnosis_since = :since"
	switch seen {
	case syncerror.DiagnosisQueued:
		cond += " AND attribute_not_exists(held_at)"
	case syncerror.DiagnosisDiagnosing:
		cond = "held_at = :sinceNs OR (" + cond + " AND attribute_not_exists(held_at))"
		values[":sinceNs"] = heldAt(seenSince)
	}
	_, err := s.updateOnce(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String("SET diagnosis = :queued, diagnosis_key = :qkey, diagnosis_since = :now, updated_at = :now REMOVE held_at"),
		ExpressionAttributeValues: values,
	})
	if err != nil {
		return fmt.Errorf("requeue %s/%s: %w", tenantID, id, err)
	}
	return nil
}

// CompleteDiagnosis implements ClaimStore.
func (s *DynamoClaims) CompleteDiagnosis(ctx context.Context, tenantID, id string, attempt int, p syncerror.Proposal, now time.Time) error {
	listed, more := proposalAttrs(p)
	return s.endAttempt(ctx, tenantID, id, attempt, syncerror.DiagnosisReady, now,
		"proposal = :extra, proposal_more = :more", []string{"diagnosis_error"}, listed, dynamostore.Item{":more": more})
}

// EndDiagnosis implements ClaimStore.
func (s *DynamoClaims) EndDiagnosis(ctx context.Context, tenantID, id string, attempt int, d syncerror.Diagnosis, reason string, now time.Time) error {
	return s.endAttempt(ctx, tenantID, id, attempt, d, now, "diagnosis_error = :extra", nil, dynamostore.Str(reason), nil)
}

// endAttempt moves a row out of diagnosing, conditional on the attempt that holds it. set is
// what else the update sets ("x = :extra, …"), after the state change's own assignments;
// remove names attributes it removes; values are any further values set names.
func (s *DynamoClaims) endAttempt(ctx context.Context, tenantID, id string, attempt int, d syncerror.Diagnosis, now time.Time,
	set string, remove []string, extra types.AttributeValue, values dynamostore.Item) error {
	update := "SET diagnosis = :d, diagnosis_since = :now, updated_at = :now, " + set
	all := dynamostore.Item{
		":d":          dynamostore.Str(string(d)),
		":now":        dynamostore.Str(dynamostore.FormatTime(now)),
		":queued":     dynamostore.Str(string(syncerror.DiagnosisQueued)),
		":diagnosing": dynamostore.Str(string(syncerror.DiagnosisDiagnosing)),
		":attempt":    dynamostore.Num(int64(attempt)),
		":extra":      extra,
	}
	maps.Copy(all, values)
	remove = append(slices.Clip(remove), attrHeldAt)
	// by_diagnosis is sparse: a claim leaving the states the reconcile looks for leaves the
	// index (one entry deleted, where moving it to a ready or failed key wrote two).
	if d.Tracked() {
		update += ", diagnosis_key = :dkey"
		all[":dkey"] = dynamostore.Str(diagnosisKey(tenantID, d))
	} else {
		remove = append(remove, "diagnosis_key")
	}
	update += " REMOVE " + strings.Join(remove, ", ")
	_, err := s.updateOnce(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table),
		Key:       s.key(tenantID, id),
		ConditionExpression: aws.String("(diagnosis_attempts = :attempt AND diagnosis = :diagnosing) OR " +
			"(diagnosis_attempts = :attempt AND diagnosis = :queued AND attribute_exists(held_at))"),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeValues: all,
	})
	if err != nil {
		return fmt.Errorf("end diagnosis %s/%s: %w", tenantID, id, err)
	}
	return nil
}
