package connector

// The host ERP's changed-since read is SuiteQL on the record's lastmodifieddate
// (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_157909186990.html),
// paged like the sync-error listing, followed by a record-service GET per row so the
// fields have the record service's names, the names flows map. Two things to know:
//
//   - SuiteQL compares date literals in the time zone of the integration's user, and the
//     bound here is UTC: set that user's time zone to GMT.
//   - Transactions (sales orders, invoices, ...) are rows of SuiteQL's transaction table
//     with a type; other record types are tables of their own name, lower-cased.
//
// A record deleted between the query and its GET is skipped: it has nothing to carry.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NetSuiteChangesQuery is the SuiteQL of the changed-since read: the table, the since
// bound as 'YYYY-MM-DD HH24:MI:SS' text, and the transaction type condition (empty, or
// " AND type = 'SalesOrd'"). It is exported so the fake host ERP answers exactly this.
const NetSuiteChangesQuery = "SELECT id, TO_CHAR(lastmodifieddate, 'YYYY-MM-DD\"T\"HH24:MI:SS') AS lastmodified FROM %s" +
	" WHERE lastmodifieddate >= TO_TIMESTAMP('%s', 'YYYY-MM-DD HH24:MI:SS')%s ORDER BY lastmodifieddate, id"

// NetSuiteTransactionTypes are the record types that are rows of SuiteQL's transaction
// table, and their type there.
var NetSuiteTransactionTypes = map[string]string{
	"salesOrder": "SalesOrd", "invoice": "CustInvc", "purchaseOrder": "PurchOrd", "creditMemo": "CustCred",
	"cashSale": "CashSale", "itemFulfillment": "ItemShip", "returnAuthorization": "RtnAuth",
}

// NetSuiteChangesSQL is the query for recordType's records changed at or after since.
func NetSuiteChangesSQL(recordType string, since time.Time) string {
	table, cond := strings.ToLower(recordType), ""
	if t, ok := NetSuiteTransactionTypes[recordType]; ok {
		table, cond = "transaction", " AND type = '"+t+"'"
	}
	return fmt.Sprintf(NetSuiteChangesQuery, table, since.UTC().Format("2006-01-02 15:04:05"), cond)
}

// changes runs the query for one page of ids and reads each record. ChangedAt is the
// query's modification time, not the GET's: a record changed again in between is read
// as it is now and found again by a later read, while the page keeps the order the
// watermark relies on.
func (n netsuite) changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error) {
	offset, limit := 0, pageSize(q.limit, 100, netsuiteMaxLimit)
	if q.cursor != "" {
		var ok bool
		if offset, limit, ok = parseOffsetCursor(q.cursor); !ok {
			return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
		}
	}
	// The bound is to the second, rounded down; what is before since is dropped below.
	rows, hasMore, err := n.suiteQL(ctx, c, OpChanges, NetSuiteChangesSQL(q.entity, q.since), offset, limit)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{Changes: make([]Change, 0, len(rows))}
	for _, row := range rows {
		id := strings.TrimSpace(fmtColumn(row["id"]))
		at, ok := stamp(fmt.Sprint(row["lastmodified"]), time.UTC, "2006-01-02T15:04:05")
		if id == "" || !ok {
			return ChangePage{}, &Error{System: c.sys, Op: OpChanges, Err: ErrUnavailable, Cause: errMalformedResponse}
		}
		rec, err := n.get(ctx, c, OpChanges, q.entity, id)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return ChangePage{}, err
		}
		page.Changes = append(page.Changes, Change{Record: rec, ChangedAt: at})
	}
	if hasMore && len(rows) > 0 {
		page.NextCursor = strconv.Itoa(offset+limit) + "." + strconv.Itoa(limit)
	}
	page.Changes = atOrAfter(page.Changes, q.since)
	return page, nil
}

// suiteQL runs one page of a transient SuiteQL query and returns its rows.
func (netsuite) suiteQL(ctx context.Context, c *Client, op, query string, offset, limit int) ([]map[string]any, bool, error) {
	body, _ := json.Marshal(map[string]string{"q": query})
	target := c.base + netsuiteSuiteQLPath + "?limit=" + strconv.Itoa(limit) + "&offset=" + strconv.Itoa(offset)
	hdr := http.Header{}
	// Transient: the query runs now rather than being stored as a saved query.
	hdr.Set("Prefer", "transient")
	ans, err := c.do(ctx, op, http.MethodPost, target, body, hdr)
	if err != nil {
		return nil, false, err
	}
	var page struct {
		Items   []map[string]any `json:"items"`
		HasMore bool             `json:"hasMore"`
	}
	if json.Unmarshal(ans.body, &page) != nil || slices.ContainsFunc(page.Items, func(row map[string]any) bool { return row == nil }) {
		return nil, false, c.malformed(op, ans)
	}
	return page.Items, page.HasMore, nil
}
