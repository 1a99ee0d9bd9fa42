package connector

// The CRM profile follows the Salesforce REST API's sObject resources:
//
//   - sObject Rows: GET and PATCH /services/data/vNN.N/sobjects/{SObject}/{id}; PATCH
//     answers 204 without a body.
//   - Conditional requests: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_rest_conditional_requests.htm
//     (If-Unmodified-Since "compare[s] the precondition to the last modified date of the
//     record"; a record modified after it is 412 Precondition Failed and not written, an
//     invalid value 400). The PATCH carries the read's LastModifiedDate as an HTTP date, so
//     an edit made between the read and the write is not overwritten.
//   - Upsert by external id: https://developer.salesforce.com/docs/platform/api-rest/guide/dome-upsert.html
//     (PATCH /services/data/vNN.N/sobjects/{SObject}/{ExternalIdField}/{value}: 201 when it
//     created the record, 200/204 when it updated one, 300 when the value matches several;
//     https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm:
//     "The response body contains the list of matching records", a JSON array of their
//     sObject Rows URLs, not an error array)
//   - Errors are an array [{"message","errorCode","fields"}]; the org's API request limit
//     is 403 REQUEST_LIMIT_EXCEEDED; a record lock another transaction held too long is
//     UNABLE_TO_LOCK_ROW (failure, below).
//   - Auth: Authorization: Bearer <access token> (a session id or OAuth access token).
//   - Changed since: SOQL through the query resource,
//     https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_query.htm
//     (GET /services/data/vNN.N/query?q=SELECT FIELDS(ALL) FROM {SObject} WHERE
//     SystemModstamp >= {since} ORDER BY SystemModstamp, Id LIMIT 200 OFFSET n;
//     FIELDS(ALL) needs a LIMIT of at most 200, and OFFSET stops at 2000).
//
// Config.BaseURL is the org's instance URL (https://MyDomainName.my.salesforce.com); the
// API version is SalesforceAPIVersion.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// SalesforceAPIVersion is the REST API version the CRM profile speaks.
const SalesforceAPIVersion = "62.0"

type salesforce struct{}

func (salesforce) auth() authScheme              { return authBearer }
func (salesforce) check(Config, *url.URL) string { return "" }

// rowURL addresses a record by id, or by an external id field's value when byField is set.
func (salesforce) rowURL(c *Client, sobject, byField, id string) string {
	u := c.base + "/services/data/v" + SalesforceAPIVersion + "/sobjects/" + url.PathEscape(sobject) + "/"
	if byField != "" {
		u += url.PathEscape(byField) + "/"
	}
	return u + url.PathEscape(id)
}

func (s salesforce) get(ctx context.Context, c *Client, op, sobject, id string) (Record, error) {
	return s.getBy(ctx, c, op, sobject, "", id)
}

// getBy reads a record; its body is the fields beside "attributes" and "Id", and
// SystemModstamp is its version.
func (s salesforce) getBy(ctx context.Context, c *Client, op, sobject, byField, id string) (Record, error) {
	rec, _, err := s.read(ctx, c, op, sobject, byField, id)
	return rec, err
}

// salesforceEnvelope are the keys of a record's body that are not fields a flow maps:
// LastModifiedDate, like SystemModstamp (the version), is the system's own stamp.
var salesforceEnvelope = []string{"attributes", "Id", "LastModifiedDate"}

// read is getBy that also returns the record's LastModifiedDate (zero when the body has
// none that parses), what If-Unmodified-Since is compared with.
func (s salesforce) read(ctx context.Context, c *Client, op, sobject, byField, id string) (Record, time.Time, error) {
	ans, err := c.do(ctx, op, http.MethodGet, s.rowURL(c, sobject, byField, id), nil, nil)
	if err != nil {
		return Record{}, time.Time{}, err
	}
	obj, ok := decodeObject(ans.body)
	if !ok {
		return Record{}, time.Time{}, c.malformed(op, ans)
	}
	modified, _ := time.Parse(salesforceStamp, scalarText(obj["LastModifiedDate"]))
	fields, version := splitRecord(obj, "SystemModstamp", salesforceEnvelope...)
	return Record{Entity: sobject, ID: id, Fields: fields, Version: version}, modified, nil
}

// write is read-compare-write; with UpsertKey it is an upsert (create_salesforce.go). The
// PATCH is conditional on the record being unmodified since the read: a 412 means
// someone changed it in between, so it is read again and judged again (the fields may now
// hold), and written once more unless the caller pinned a version. A second 412 goes to
// the caller as ErrConflict.
func (s salesforce) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != "" {
		return s.upsert(ctx, c, req)
	}
	body, _ := json.Marshal(req.Fields)
	for try := 1; ; try++ {
		rec, modified, err := s.read(ctx, c, OpWrite, req.Entity, "", req.RecordID)
		cur, _, done, err := c.compareRead(req, false)(rec, err)
		if err != nil || done {
			return WriteResult{Record: cur, Replayed: done}, err
		}
		hdr := writeHeaders(req)
		if !modified.IsZero() {
			hdr.Set("If-Unmodified-Since", httpDateAtOrAfter(modified))
		}
		_, err = c.do(ctx, OpWrite, http.MethodPatch, s.rowURL(c, req.Entity, "", req.RecordID), body, hdr)
		if err == nil {
			rec, err := c.readBack(ctx, s, req.Entity, req.RecordID)
			return WriteResult{Record: rec}, err
		}
		var ce *Error
		if try == 1 && req.IfVersion == "" && errors.As(err, &ce) && ce.Status == http.StatusPreconditionFailed {
			continue
		}
		return WriteResult{}, err
	}
}

// httpDateAtOrAfter is t as an HTTP date, rounded up to the second. HTTP dates have whole
// seconds and LastModifiedDate has milliseconds: rounded down, the record just read would
// be "modified after" the date if Salesforce compares to the millisecond (the pages do not
// say), and every write would be refused. Rounded up, an edit made in the rest of the
// read's second is not caught: the smaller risk, and none where the comparison is to the
// second (RFC 9110 §13.1.4).
func httpDateAtOrAfter(t time.Time) string {
	up := t.Truncate(time.Second)
	if up.Before(t) {
		up = up.Add(time.Second)
	}
	return up.UTC().Format(http.TimeFormat)
}

// SalesforceChangesQuery is the SOQL of the changed-since read: the sObject, the since
// bound (a datetime literal, to the second: SOQL's literals have no fraction), the page
// size and the offset. It is exported so the fake CRM answers exactly this query.
const SalesforceChangesQuery = "SELECT FIELDS(ALL) FROM %s WHERE SystemModstamp >= %s ORDER BY SystemModstamp, Id LIMIT %d OFFSET %d"

// Limits of the changed-since read: FIELDS(ALL)'s largest LIMIT and SOQL's largest OFFSET.
const (
	salesforceMaxPage   = 200
	salesforceMaxOffset = 2000
)

// salesforceStamp is how the REST API writes SystemModstamp.
const salesforceStamp = "2006-01-02T15:04:05.000-0700"

// changes pages through SOQL by offset. The poll moves its since on after every page that
// moves it, so the offset grows only across records that changed in the same second; past
// SOQL's largest OFFSET the read ends, and the caller's next read starts later.
func (s salesforce) changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error) {
	offset, ok := parseOffset(q.cursor)
	if !ok || offset > salesforceMaxOffset {
		return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
	}
	limit := pageSize(q.limit, salesforceMaxPage, salesforceMaxPage)
	soql := fmt.Sprintf(SalesforceChangesQuery, q.entity, q.since.Truncate(time.Second).Format(time.RFC3339), limit, offset)
	target := c.base + "/services/data/v" + SalesforceAPIVersion + "/query?q=" + url.QueryEscape(soql)
	var res struct {
		Records []json.RawMessage `json:"records"`
	}
	ans, err := c.getJSON(ctx, OpChanges, target, nil, &res)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{}
	if len(res.Records) == limit && offset+limit <= salesforceMaxOffset {
		page.NextCursor = offsetCursor(offset + limit)
	}
	page.Changes, err = c.changesIn(ans, res.Records, q.since, listing{idKey: "Id", stampKey: "SystemModstamp", zone: time.UTC,
		layouts: []string{salesforceStamp, time.RFC3339Nano}, decode: func(body []byte, id string) (Record, error) {
			return c.recordOf(OpChanges, answer{body: body}, q.entity, id, "SystemModstamp", salesforceEnvelope...)
		}})
	if err != nil {
		return ChangePage{}, err
	}
	return page, nil
}

// failure reads Salesforce's error array. REQUEST_LIMIT_EXCEEDED is the org's rolling
// 24-hour API limit (sent as 403): rate limited, not retried within the call (seconds of
// backoff do not lift it), and handed back with SalesforceLimitWait for the caller to defer. 300 on an upsert is an external id matching several
// records: a conflict in the data, not an outage; its body is the list of those records'
// URLs, whose count the error names. UNABLE_TO_LOCK_ROW is a save refused for a lock
// another transaction held: retried, and never taken for a write that may have landed.
func (salesforce) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	if status == http.StatusMultipleChoices {
		f := standardFailure(status, h, "", now)
		f.sentinel = ErrConflict
		var matches []string
		if json.Unmarshal(body, &matches) == nil && len(matches) > 0 {
			f.cause = fmt.Errorf("the external id matches %d records", len(matches))
		}
		return f
	}
	var errs []struct {
		ErrorCode string `json:"errorCode"`
	}
	code := ""
	if json.Unmarshal(body, &errs) == nil && len(errs) > 0 {
		code = errs[0].ErrorCode
	}
	f := standardFailure(status, h, code, now)
	switch code {
	case "REQUEST_LIMIT_EXCEEDED":
		// Handed back at once with a wait, so the caller defers the write (a flow run's next
		// attempt, the retry schedule) instead of failing it for good.
		f.sentinel, f.retryable, f.deferred, f.retryAfter = ErrRateLimited, true, true, SalesforceLimitWait
	case SalesforceLockCode:
		// "A deadlock or timeout condition has been detected. [...] The timeout state is
		// temporary. No corrective action is needed. If an object in a batch can't be
		// locked, the entire batch fails with this error." (StatusCode,
		// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm);
		// a save waits at most 10 seconds for another transaction's lock and then fails
		// (Locking Statements,
		// https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/langCon_apex_locking_statements.htm).
		// So the same request may well pass a moment later: retried with the backoff like a
		// 503. And the save failed as a whole, so nothing of it is in the record: resent as
		// it stands (a create too), never MayHaveApplied, which a 503 would be. That the
		// failed save leaves nothing behind is what "the entire batch fails" implies, not
		// a sentence of the pages; the HTTP status is not documented either (clients see
		// 400), so the code decides whatever the status.
		f.sentinel, f.retryable, f.unapplied, f.cause = ErrUnavailable, true, true, errLockContention
	}
	return f
}

// SalesforceLockCode is Salesforce's error code for a record lock it could not get in time.
const SalesforceLockCode = "UNABLE_TO_LOCK_ROW"

// errLockContention is the cause of a SalesforceLockCode refusal: what the operator must
// read in the error, without the message's record ids.
var errLockContention = errors.New("another transaction held a record lock the save needed, so nothing was applied")

// SalesforceLimitWait is how long a write waits once the org's daily API requests are
// spent. Salesforce gives no reset for the rolling 24-hour allowance (the Limit Info header
// says only used/limit: https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_api_usage.htm);
// the quarter hour is an assumption.
const SalesforceLimitWait = 15 * time.Minute
