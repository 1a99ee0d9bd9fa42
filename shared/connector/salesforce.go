package connector

// The CRM profile follows the Salesforce REST API's sObject resources:
//
//   - sObject Rows: GET and PATCH /services/data/vNN.N/sobjects/{SObject}/{id}; PATCH
//     answers 204 without a body.
//   - Upsert by external id: https://developer.salesforce.com/docs/platform/api-rest/guide/dome-upsert.html
//     (PATCH /services/data/vNN.N/sobjects/{SObject}/{ExternalIdField}/{value}: 201 when it
//     created the record, 200/204 when it updated one, 300 when the value matches several)
//   - Errors are an array [{"message","errorCode","fields"}]; the org's API request limit
//     is 403 REQUEST_LIMIT_EXCEEDED.
//   - Auth: Authorization: Bearer <access token> (a session id or OAuth access token).
//
// Config.BaseURL is the org's instance URL (https://MyDomainName.my.salesforce.com); the
// API version is SalesforceAPIVersion.

import (
	"context"
	"encoding/json"
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
	ans, err := c.do(ctx, op, http.MethodGet, s.rowURL(c, sobject, byField, id), nil, nil)
	if err != nil {
		return Record{}, err
	}
	return c.recordOf(op, ans, sobject, id, "SystemModstamp", "attributes", "Id")
}

// write is read-compare-write; with UpsertKey the row is addressed by that external id and
// a missing one is created, which is Salesforce's own idempotent create.
func (s salesforce) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	cur, _, done, err := c.compareRead(req, req.UpsertKey != "")(s.getBy(ctx, c, OpWrite, req.Entity, req.UpsertKey, req.RecordID))
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, err
	}
	body, _ := json.Marshal(req.Fields)
	if _, err := c.do(ctx, OpWrite, http.MethodPatch, s.rowURL(c, req.Entity, req.UpsertKey, req.RecordID), body, writeHeaders(req)); err != nil {
		return WriteResult{}, err
	}
	rec, err := s.getBy(ctx, c, OpWrite, req.Entity, req.UpsertKey, req.RecordID)
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Record: rec}, nil
}

// failure reads Salesforce's error array. REQUEST_LIMIT_EXCEEDED is the org's rolling
// 24-hour API limit (sent as 403): rate limited, and not retried within the call, since
// seconds of backoff do not lift it. 300 on an upsert is an external id matching several
// records: a conflict in the data, not an outage.
func (salesforce) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var errs []struct {
		ErrorCode string `json:"errorCode"`
	}
	code := ""
	if json.Unmarshal(body, &errs) == nil && len(errs) > 0 {
		code = errs[0].ErrorCode
	}
	f := standardFailure(status, h, code, now)
	switch {
	case code == "REQUEST_LIMIT_EXCEEDED":
		f.sentinel, f.retryable = ErrRateLimited, false
	case status == http.StatusMultipleChoices:
		f.sentinel = ErrConflict
	}
	return f
}
