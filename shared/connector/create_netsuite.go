package connector

// NetSuite's record service creates with POST /services/rest/record/v1/{type}, answering
// 204 with no body and the new record's URL in Location (its id the last segment), and
// upserts by external id with PUT /services/rest/record/v1/{type}/eid:{externalId}
// (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156335203191.html).
// The upsert's own status is not documented; the record is read by the same eid: address
// first, which tells a create from an update and makes a repeated upsert a replay.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// NetSuiteExternalID is the upsert key NetSuite takes: the record's external id.
const NetSuiteExternalID = "externalId"

// NetSuiteFindQuery is the SuiteQL of a find: the table, the field, the quoted value and
// the transaction type condition (see NetSuiteChangesSQL). Exported so the fake answers it.
const NetSuiteFindQuery = "SELECT id FROM %s WHERE %s = %s%s ORDER BY id"

func (n netsuite) create(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	body, _ := json.Marshal(req.Fields)
	target := c.base + netsuiteRecordPrefix + "/" + url.PathEscape(req.Entity)
	ans, err := c.sendCreate(ctx, http.MethodPost, target, body, req)
	if err != nil {
		return WriteResult{}, err
	}
	return createdResult(ctx, c, n, req.Entity, lastSegment(ans.header.Get("Location")))
}

// upsert is read-compare-write on the eid: address: a record that already holds the
// fields is a replay, anything else is one PUT.
func (n netsuite) upsert(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != NetSuiteExternalID {
		return WriteResult{}, c.refuse(OpWrite, "NetSuite upserts by externalId only")
	}
	eid := "eid:" + req.RecordID
	cur, exists, done, err := c.compareRead(req, true)(n.getWithID(ctx, c, req.Entity, eid))
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, err
	}
	body, _ := json.Marshal(req.Fields)
	ans, err := c.do(ctx, OpWrite, http.MethodPut, n.recordURL(c, req.Entity, eid), body, writeHeaders(req))
	if err != nil {
		return WriteResult{}, err
	}
	id := lastSegment(ans.header.Get("Location"))
	if strings.HasPrefix(id, "eid:") || id == "" {
		id = cur.ID
	}
	res, err := createdResult(ctx, c, n, req.Entity, id)
	res.Created = !exists
	return res, err
}

// getWithID reads a record by any address and keeps its internal id as the Record's ID.
func (n netsuite) getWithID(ctx context.Context, c *Client, recordType, address string) (Record, error) {
	ans, err := c.do(ctx, OpWrite, http.MethodGet, n.recordURL(c, recordType, address)+netsuiteExpand, nil, nil)
	if err != nil {
		return Record{}, err
	}
	obj, ok := decodeObject(ans.body)
	if !ok {
		return Record{}, c.malformed(OpWrite, ans)
	}
	id := scalarText(obj["id"])
	fields, version := splitRecord(obj, "lastModifiedDate", "links", "id")
	return Record{Entity: recordType, ID: id, Fields: fields, Version: version}, nil
}

// find runs SuiteQL for the ids whose field holds value.
func (n netsuite) find(ctx context.Context, c *Client, recordType, field, value string) ([]string, error) {
	table, cond := strings.ToLower(recordType), ""
	if t, ok := NetSuiteTransactionTypes[recordType]; ok {
		table, cond = "transaction", " AND type = '"+t+"'"
	}
	q := fmt.Sprintf(NetSuiteFindQuery, table, strings.ToLower(field), quoteSQL(value), cond)
	rows, _, err := n.suiteQL(ctx, c, OpFind, q, 0, MaxFound)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(rows))
	for _, row := range rows {
		if id := strings.TrimSpace(fmtColumn(row["id"])); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
