package connector

// The host ERP profile follows Oracle NetSuite's REST web services (SuiteTalk REST):
//
//   - Record service: GET and PATCH /services/rest/record/v1/{recordType}/{id}; PATCH
//     answers 204 with a Location header and no body (NetSuite Help, "Working with
//     Records" in REST Web Services).
//   - Errors: https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156570709583.html
//     ({"type","title","status","o:errorDetails":[{"detail","o:errorCode"}]})
//   - SuiteQL: https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157909186990.html
//     (POST /services/rest/query/v1/suiteql with Prefer: transient and {"q": ...})
//   - Paging: https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156414087576.html
//     (limit 1..1000, offset a multiple of limit, hasMore)
//   - Auth: OAuth 2.0 bearer tokens; the machine-to-machine (client credentials) flow gets
//     them from /services/rest/auth/oauth2/v1/token with a signed JWT client assertion
//     (netsuite_m2m.go).

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type netsuite struct{}

const (
	netsuiteRecordPrefix = "/services/rest/record/v1"
	netsuiteSuiteQLPath  = "/services/rest/query/v1/suiteql"
	// netsuiteMaxLimit is SuiteQL's largest page.
	netsuiteMaxLimit = 1000
)

func (netsuite) auth() authScheme { return authBearerAssertion }

// check refuses a client secret where the M2M login needs a signing key: NetSuite would
// answer every token request with invalid_client.
func (netsuite) check(cfg Config, _ *url.URL) string {
	if cfg.TokenURL == "" || cfg.Token == "" {
		return ""
	}
	if _, err := parseNetSuiteCredential(cfg.Token); err != nil {
		return err.Error()
	}
	return ""
}

func (netsuite) recordURL(c *Client, recordType, id string) string {
	return c.base + netsuiteRecordPrefix + "/" + url.PathEscape(recordType) + "/" + url.PathEscape(id)
}

// get reads a record. NetSuite's body is the record's fields beside "links" and "id";
// lastModifiedDate is the only concurrency token the record service offers. Sublists come
// inline (expandSubResources), so a write's lines can be compared with the record's.
func (n netsuite) get(ctx context.Context, c *Client, op, recordType, id string) (Record, error) {
	ans, err := c.do(ctx, op, http.MethodGet, n.recordURL(c, recordType, id)+netsuiteExpand, nil, nil)
	if err != nil {
		return Record{}, err
	}
	return c.recordOf(op, ans, recordType, id, "lastModifiedDate", "links", "id")
}

// write is read-compare-write: NetSuite's synchronous record service keeps no idempotency
// key, but setting fields to values is idempotent, and a retry whose first attempt did
// land finds the values in place and sends nothing.
func (n netsuite) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != "" {
		return n.upsert(ctx, c, req)
	}
	cur, _, done, err := c.readForWrite(ctx, n, req, false)
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, err
	}
	return patchThenRead(ctx, c, n, req, n.recordURL(c, req.Entity, req.RecordID)+netsuiteReplace(req.Fields))
}

// patchThenRead sends the fields as a PATCH whose answer has no body (204) and reads the
// record back, so the caller gets the record as the system now holds it.
func patchThenRead(ctx context.Context, c *Client, p profile, req writeOp, target string) (WriteResult, error) {
	body, _ := json.Marshal(req.Fields)
	if _, err := c.do(ctx, OpWrite, http.MethodPatch, target, body, writeHeaders(req)); err != nil {
		return WriteResult{}, err
	}
	rec, err := c.readBack(ctx, p, req.Entity, req.RecordID)
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Record: rec}, nil
}

// failure reads NetSuite's error body: the first o:errorCode is the code (the detail
// quotes field values). 429 is CONCURRENCY_LIMIT_EXCEEDED, retried like any 429.
func (netsuite) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var e struct {
		Details []struct {
			Code string `json:"o:errorCode"`
		} `json:"o:errorDetails"`
	}
	code := ""
	if json.Unmarshal(body, &e) == nil && len(e.Details) > 0 {
		code = e.Details[0].Code
	}
	return standardFailure(status, h, code, now)
}

// The custom record the host ERP's script writes one of per sync error, and its fields
// (netsuite/src/Objects/customrecord_sea_sync_error.xml). colInternalID is the record's
// own internal id.
const (
	syncErrorRecord = "customrecord_sea_sync_error"
	colInternalID   = "id"
	colErrorID      = "custrecord_sea_error_id"
	colRecordType   = "custrecord_sea_record_type"
	colRecordID     = "custrecord_sea_record_id"
	colErrorCode    = "custrecord_sea_error_code"
	colMessage      = "custrecord_sea_message"
	colPayload      = "custrecord_sea_payload"
	colOccurredAt   = "custrecord_sea_occurred_at"
	colExternal     = "custrecord_sea_external_system"
	colDirection    = "custrecord_sea_direction"
)

// SyncErrorQuery is the SuiteQL the listing runs, with %s the optional WHERE clause. It is
// exported so the fake host ERP answers exactly this query.
const SyncErrorQuery = "SELECT " + colInternalID + ", " + colErrorID + ", " + colRecordType + ", " + colRecordID + ", " + colErrorCode + ", " +
	colMessage + ", " + colPayload + ", " + colOccurredAt + ", " + colExternal + ", " + colDirection +
	" FROM " + syncErrorRecord + "%s ORDER BY " + colOccurredAt + ", " + colErrorID + ", " + colInternalID

// SyncErrorSince is the WHERE clause for a since bound, with %s its second-precision UTC
// time. occurred_at is ISO text; comparing its first 19 characters (to the second) keeps
// the bound inclusive whatever fraction and zone suffix the script wrote.
const SyncErrorSince = " WHERE SUBSTR(" + colOccurredAt + ", 1, 19) >= '%s'"

// listSyncErrors pages through the sync-error custom record with SuiteQL. The cursor is
// "offset.limit": NetSuite wants every offset to be a multiple of the page size, so the
// size of the first page is kept for the rest.
func (n netsuite) listSyncErrors(ctx context.Context, c *Client, since time.Time, cursor string, limit int) (SyncErrorPage, error) {
	offset := 0
	limit = min(max(limit, 0), netsuiteMaxLimit)
	if limit == 0 {
		limit = netsuiteMaxLimit
	}
	if cursor != "" {
		var ok bool
		if offset, limit, ok = parseOffsetCursor(cursor); !ok {
			return SyncErrorPage{}, c.refuse(OpListSyncErrors, "cursor is not one this client issued")
		}
	}
	where := ""
	if !since.IsZero() {
		where = strings.Replace(SyncErrorSince, "%s", since.UTC().Format("2006-01-02T15:04:05"), 1)
	}
	items, hasMore, err := n.suiteQL(ctx, c, OpListSyncErrors, strings.Replace(SyncErrorQuery, "%s", where, 1), offset, limit)
	if err != nil {
		return SyncErrorPage{}, err
	}
	out := SyncErrorPage{Items: make([]json.RawMessage, 0, len(items))}
	for _, row := range items {
		item, err := json.Marshal(ingestBody(row, c.tenantID))
		if err != nil {
			return SyncErrorPage{}, &Error{System: c.sys, Op: OpListSyncErrors, Err: ErrUnavailable, Cause: errMalformedResponse}
		}
		out.Items = append(out.Items, item)
	}
	if hasMore && len(items) > 0 {
		out.NextCursor = strconv.Itoa(offset+limit) + "." + strconv.Itoa(limit)
	}
	return out, nil
}

func parseOffsetCursor(cursor string) (offset, limit int, ok bool) {
	o, l, found := strings.Cut(cursor, ".")
	offset, err1 := strconv.Atoi(o)
	limit, err2 := strconv.Atoi(l)
	if !found || err1 != nil || err2 != nil || offset < 0 || limit < 1 || limit > netsuiteMaxLimit || offset%limit != 0 {
		return 0, 0, false
	}
	return offset, limit, true
}

// FallbackErrorIDPrefix makes the errorId of a sync-error record whose error id field is
// empty: the prefix and the record's internal id. The host ERP's user-event script
// (netsuite/src/FileCabinet/SuiteScripts/sync_error_assist/sea_sync_error_ue.js) derives it
// the same way, so the reconcile's poll and the script's post of one record claim one
// sync error.
const FallbackErrorIDPrefix = "ns-sync-error-"

// ingestBody maps one SuiteQL row to the ingest webhook's body format, as the host ERP's
// script builds it from the same record: text fields trimmed (the message kept as it is),
// errorId falling back to FallbackErrorIDPrefix and the internal id, occurredAt as UTC ISO
// text, direction lower-cased. What the ingest would reject rather than lose the error for
// (a direction it does not know, a payload that is not a JSON object, a time that does not
// parse) goes to context as text, as the script does; a record without a usable time is
// then refused by the ingest validation, where the script falls back to the record's
// creation time. SuiteQL leaves out empty columns, so absent fields stay absent and the
// ingest validation names what is missing.
func ingestBody(row map[string]any, tenantID string) map[string]any {
	out := map[string]any{}
	if tenantID != "" {
		out["tenantId"] = tenantID
	}
	text := func(col string) string {
		if v, ok := row[col]; ok && v != nil {
			return fmtColumn(v)
		}
		return ""
	}
	internalID := strings.TrimSpace(text(colInternalID))
	about := map[string]any{"source": "netsuite"}
	if internalID != "" {
		about["hostRecord"] = map[string]any{"type": syncErrorRecord, "id": internalID}
	}
	errorID := strings.TrimSpace(text(colErrorID))
	if errorID == "" && internalID != "" {
		errorID = FallbackErrorIDPrefix + internalID
	}
	for key, v := range map[string]string{
		"errorId": errorID, "recordType": strings.TrimSpace(text(colRecordType)), "recordId": strings.TrimSpace(text(colRecordID)),
		"errorCode": strings.TrimSpace(text(colErrorCode)), "message": text(colMessage),
		"externalSystem": strings.TrimSpace(text(colExternal)),
	} {
		if v != "" {
			out[key] = v
		}
	}
	if at := strings.TrimSpace(text(colOccurredAt)); at != "" {
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
			out["occurredAt"] = t.UTC().Format("2006-01-02T15:04:05.000Z")
		} else {
			about["occurredAtText"] = at
		}
	}
	switch d := strings.TrimSpace(text(colDirection)); strings.ToLower(d) {
	case "":
	case "inbound", "outbound":
		out["direction"] = strings.ToLower(d)
	default:
		about["directionText"] = d
	}
	if p := text(colPayload); strings.TrimSpace(p) != "" {
		if _, ok := decodeObject([]byte(p)); ok && json.Valid([]byte(p)) {
			out["payload"] = json.RawMessage(p)
		} else {
			about["payloadText"] = p
		}
	}
	out["context"] = about
	return out
}

// fmtColumn gives a column's value as the text the ingest format wants: SuiteQL sends
// numbers for numeric-looking ids.
func fmtColumn(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
