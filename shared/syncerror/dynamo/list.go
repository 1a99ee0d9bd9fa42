package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// What a listing costs in DynamoDB. Every listing is a Query of one partition of the
// by_status index (a tenant's rows in one status), newest or oldest first, with Since a
// range on its sort key: reads are proportional to the rows answered. Every other filter
// (class, search, assignee, tag, system) is a FilterExpression on that Query: DynamoDB reads the
// rows and drops the ones that fail, so a filtered page pays for the rows it examined. To
// keep one request from reading a whole status, a filtered page examines at most
// ListScanCap rows (listMaxReads queries of listFilteredReads) and then ends with a cursor
// at the last row examined, even with fewer rows than asked for (or none); the next page
// goes on from there. A listing of several statuses (status open or any) is one such Query
// per status, merged by the queue (queue/listmerge.go), each with its share of the bound. Search is case-insensitive on rows that carry search_ids and
// search_msg (lower-cased error id and record id, and message, written with the row and
// with a new message) and exact-case on rows claimed before they existed.
const (
	listMaxReads      = 10
	listFilteredReads = 100
	// ListScanCap bounds the rows one filtered page examines.
	ListScanCap = listMaxReads * listFilteredReads
)

// listFilter is the FilterExpression of q and its values (nil when q has no filter).
func listFilter(q syncerror.ListQuery, values dynamostore.Item) *string {
	var parts []string
	if q.Class != "" {
		// The proposal is stored as the JSON of Proposal, whose first field is
		// the class, so a prefix test is exact (the contract suite holds it to that).
		parts = append(parts, "begins_with(proposal, :class)")
		values[":class"] = dynamostore.Str(`{"class":` + strconv.Quote(q.Class) + `,`)
	}
	if q.Search != "" {
		parts = append(parts, "(contains(search_ids, :lq) OR contains(search_msg, :lq) OR "+
			"contains(error_id, :q) OR contains(record_id, :q) OR contains(message, :q))")
		values[":q"], values[":lq"] = dynamostore.Str(q.Search), dynamostore.Str(strings.ToLower(q.Search))
	}
	switch {
	case q.Unassigned:
		parts = append(parts, "attribute_not_exists(assignee)")
	case q.Assignee != "":
		parts = append(parts, "assignee = :assignee")
		values[":assignee"] = dynamostore.Str(q.Assignee)
	}
	if q.Tag != "" {
		parts = append(parts, "contains(tags, :tag)")
		values[":tag"] = dynamostore.Str(q.Tag)
	}
	switch {
	case len(q.Systems) > 0:
		parts = append(parts, systemNamesFilter(q.Systems, values))
	case q.System != "":
		parts = append(parts, "external_system = :system")
		values[":system"] = dynamostore.Str(q.System)
	}
	if len(parts) == 0 {
		return nil
	}
	return aws.String(strings.Join(parts, " AND "))
}

// List implements DecisionStore through the by_status index (see above for what each
// filter costs). The cursor is the last returned (or examined) row's index sort key, which
// also names its id.
func (s *DynamoClaims) List(ctx context.Context, tenantID string, q syncerror.ListQuery) (syncerror.Page, error) {
	key := statusKey(tenantID, q.Status)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(blueprint.IndexByStatus),
		KeyConditionExpression:    aws.String("status_key = :k"),
		ExpressionAttributeValues: dynamostore.Item{":k": dynamostore.Str(key)},
		ScanIndexForward:          aws.Bool(q.Oldest),
		Limit:                     aws.Int32(int32(q.Limit + 1)),
	}
	if !q.Since.IsZero() {
		in.KeyConditionExpression = aws.String("status_key = :k AND claimed_sort >= :since")
		in.ExpressionAttributeValues[":since"] = dynamostore.Str(dynamostore.FormatTime(q.Since))
	}
	if in.FilterExpression = listFilter(q, in.ExpressionAttributeValues); in.FilterExpression != nil {
		in.Limit = aws.Int32(listFilteredReads)
	}
	if q.Cursor != "" {
		sortKey, id, ok := dynamostore.DecodeTimedCursor(q.Cursor, "")
		if !ok || !syncerror.ValidClaimID(id) {
			return syncerror.Page{}, syncerror.ErrBadCursor
		}
		in.ExclusiveStartKey = dynamostore.Item{"tenant_id": dynamostore.Str(tenantID), "id": dynamostore.Str(id), "status_key": dynamostore.Str(key), "claimed_sort": dynamostore.Str(sortKey)}
	}
	var p syncerror.Page
	cursorOf := func(c syncerror.Claim) string {
		return dynamostore.EncodeCursor(dynamostore.FormatTime(c.ClaimedAt) + "#" + c.ID)
	}
	// A merged listing's statuses share one page's bound (queue/listmerge.go).
	maxReads := listMaxReads
	if q.Share > 1 {
		maxReads = max(1, listMaxReads/q.Share)
	}
	for reads := 0; ; reads++ {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return syncerror.Page{}, fmt.Errorf("list %s claims of %s: %w", q.Status, tenantID, err)
		}
		for _, it := range out.Items {
			if len(p.Claims) == q.Limit {
				p.NextCursor = cursorOf(p.Claims[q.Limit-1])
				return p, nil
			}
			c, err := claimFrom(it)
			if err != nil {
				return syncerror.Page{}, err
			}
			p.Claims = append(p.Claims, c)
		}
		if out.LastEvaluatedKey == nil {
			return p, nil
		}
		if reads+1 == maxReads {
			// The cap: go on from the last row examined, which may be past the last
			// row answered.
			p.NextCursor = dynamostore.EncodeCursor(dynamostore.GetString(out.LastEvaluatedKey, "claimed_sort"))
			return p, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// systemNamesFilter keeps rows whose external system is one of names: compared trimmed and
// without case on rows that carry system_name (written with the row), and exactly as
// written on rows claimed before it existed. Names are at most tenant.MaxSystemAliases
// plus the defaults, within an IN's 100 operands.
func systemNamesFilter(names []string, values dynamostore.Item) string {
	var folded, exact []string
	seen := map[string]bool{}
	for i, n := range names {
		ref := ":sx" + strconv.Itoa(i)
		values[ref] = dynamostore.Str(n)
		exact = append(exact, ref)
		if k := strings.ToLower(strings.TrimSpace(n)); !seen[k] {
			seen[k] = true
			ref = ":sn" + strconv.Itoa(len(folded))
			values[ref] = dynamostore.Str(k)
			folded = append(folded, ref)
		}
	}
	return "(system_name IN (" + strings.Join(folded, ", ") + ") OR external_system IN (" + strings.Join(exact, ", ") + "))"
}
