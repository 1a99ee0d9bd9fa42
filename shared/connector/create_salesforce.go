package connector

// Salesforce creates with POST /services/data/vNN.N/sobjects/{SObject}/, answering 201
// {"id","success":true,"errors":[]}
// (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_sobject_create.htm),
// upserts with PATCH …/sobjects/{SObject}/{ExternalIdField}/{value}, answering 201
// {"id","success","errors","created":true} when it created the record and 200 with
// "created":false when it updated one (204 without a body from older API versions), 300
// when several records hold the value; the body must not name Id or the external id
// field (dome_upsert.htm). Records are found with SOQL through the query resource.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
)

// SalesforceFindQuery is the SOQL of a find: the sObject, the field, the quoted value and
// the limit. Exported so the fake CRM answers exactly this query.
const SalesforceFindQuery = "SELECT Id FROM %s WHERE %s = %s ORDER BY Id LIMIT %d"

// salesforceSaved is the answer to a create or an upsert that created or updated.
type salesforceSaved struct {
	ID      string `json:"id"`
	Created *bool  `json:"created"`
}

func (s salesforce) create(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	body, _ := json.Marshal(req.Fields)
	target := c.base + "/services/data/v" + SalesforceAPIVersion + "/sobjects/" + url.PathEscape(req.Entity) + "/"
	ans, err := c.sendCreate(ctx, http.MethodPost, target, body, req)
	if err != nil {
		return WriteResult{}, err
	}
	var saved salesforceSaved
	if json.Unmarshal(ans.body, &saved) != nil {
		return WriteResult{}, c.malformed(OpWrite, ans)
	}
	return createdResult(ctx, c, s, req.Entity, saved.ID)
}

// upsert is read-compare-write on the external id's address: a record that holds the
// fields already is a replay, anything else is one PATCH, which creates the record when
// none has the value.
func (s salesforce) upsert(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	cur, exists, done, err := c.compareRead(req, true)(s.getKeepingID(ctx, c, req.Entity, req.UpsertKey, req.RecordID))
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, err
	}
	fields := maps.Clone(req.Fields)
	delete(fields, req.UpsertKey)
	delete(fields, "Id")
	body, _ := json.Marshal(fields)
	ans, err := c.do(ctx, OpWrite, http.MethodPatch, s.rowURL(c, req.Entity, req.UpsertKey, req.RecordID), body, writeHeaders(req))
	if err != nil {
		return WriteResult{}, err
	}
	saved := salesforceSaved{ID: cur.ID}
	if len(ans.body) > 0 && json.Unmarshal(ans.body, &saved) != nil {
		return WriteResult{}, c.malformed(OpWrite, ans)
	}
	if saved.ID == "" {
		saved.ID = cur.ID
	}
	res, err := createdResult(ctx, c, s, req.Entity, saved.ID)
	res.Created = ans.status == http.StatusCreated || saved.Created != nil && *saved.Created || !exists
	return res, err
}

// getKeepingID reads a record by an external id and keeps its Id as the Record's ID.
func (s salesforce) getKeepingID(ctx context.Context, c *Client, sobject, byField, value string) (Record, error) {
	ans, err := c.do(ctx, OpWrite, http.MethodGet, s.rowURL(c, sobject, byField, value), nil, nil)
	if err != nil {
		return Record{}, err
	}
	obj, ok := decodeObject(ans.body)
	if !ok {
		return Record{}, c.malformed(OpWrite, ans)
	}
	id := scalarText(obj["Id"])
	fields, version := splitRecord(obj, "SystemModstamp", "attributes", "Id")
	return Record{Entity: sobject, ID: id, Fields: fields, Version: version}, nil
}

// find runs SOQL for the Ids whose field holds value.
func (salesforce) find(ctx context.Context, c *Client, sobject, field, value string) ([]string, error) {
	soql := fmt.Sprintf(SalesforceFindQuery, sobject, field, quoteSOQL(value), MaxFound)
	var res struct {
		Records []struct {
			ID string `json:"Id"`
		} `json:"records"`
	}
	if _, err := c.getJSON(ctx, OpFind, c.base+"/services/data/v"+SalesforceAPIVersion+"/query?q="+url.QueryEscape(soql), nil, &res); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		if r.ID != "" {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}
