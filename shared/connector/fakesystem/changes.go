package fakesystem

// The vendors' changed-since reads, as each fake answers them: NetSuite's SuiteQL on
// lastmodifieddate, Business Central's entity set with $filter/$orderby/$top (and $skip
// in its next link), Salesforce's SOQL query resource, Mailchimp's list members by
// since_last_changed and ShipStation's list orders by modifyDateStart. Each reads the
// records' modification times (Server.touch) and answers in the vendor's page shape.

import (
	"cmp"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// changed lists the records of entity modified at or after since, oldest first (by
// modification time, then id), as every vendor's read orders them.
func (s *Server) changed(entity string, since time.Time) []*record {
	var out []*record
	for k, rec := range s.records {
		if k.entity == entity && !rec.modified.Before(since) {
			out = append(out, rec)
		}
	}
	slices.SortFunc(out, func(a, b *record) int { return cmp.Or(a.modified.Compare(b.modified), cmp.Compare(a.id, b.id)) })
	return out
}

func window[T any](all []T, offset, limit int) []T {
	return all[min(offset, len(all)):min(offset+limit, len(all))]
}

// netsuiteChanges matches connector.NetSuiteChangesQuery: table, since, type condition.
var netsuiteChanges = func() *regexp.Regexp {
	parts := strings.Split(regexp.QuoteMeta(connector.NetSuiteChangesQuery), "%s")
	return regexp.MustCompile("^" + parts[0] + `([a-z][a-z0-9_]*)` + parts[1] + `(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)` +
		parts[2] + `((?: AND type = '[A-Za-z]+')?)` + parts[3] + "$")
}()

// netsuiteChangeRows answers the changed-since query, or ok false for another query.
func (s *Server) netsuiteChangeRows(q string) (rows []map[string]any, ok bool) {
	m := netsuiteChanges.FindStringSubmatch(q)
	if m == nil {
		return nil, false
	}
	since, err := time.Parse("2006-01-02 15:04:05", m[2])
	if err != nil {
		return nil, false
	}
	recordType := ""
	for rt, typ := range connector.NetSuiteTransactionTypes {
		if m[1] == "transaction" && m[3] == " AND type = '"+typ+"'" {
			recordType = rt
		}
	}
	rows = []map[string]any{}
	for k := range s.records {
		if recordType == "" && m[3] == "" && strings.ToLower(k.entity) == m[1] {
			recordType = k.entity
		}
	}
	for _, rec := range s.changed(recordType, since) {
		rows = append(rows, map[string]any{"links": []any{}, "id": rec.id, "lastmodified": rec.modified.Format("2006-01-02T15:04:05")})
	}
	return rows, true
}

// bcChanges answers GET {entitySet}?$filter=lastModifiedDateTime ge …&$orderby=…, as
// OData pages it: the page size is the client's Prefer: odata.maxpagesize (Business
// Central's default page is 20,000), and @odata.nextLink carries the position ($skip
// here) while more remain. $top caps the whole result, as OData says, so a client that
// pages with it gets no next link.
func (b bcFake) changes(s *Server, r *http.Request, entitySet string) reply {
	q := r.URL.Query()
	at, ok := strings.CutPrefix(q.Get("$filter"), "lastModifiedDateTime ge ")
	since, err := time.Parse(time.RFC3339Nano, at)
	skip, errSkip := strconv.Atoi(cmp.Or(q.Get("$skip"), "0"))
	size, errSize := strconv.Atoi(cmp.Or(strings.TrimPrefix(r.Header.Get("Prefer"), "odata.maxpagesize="), "20000"))
	if !ok || err != nil || q.Get("$orderby") != "lastModifiedDateTime,id" || errSkip != nil || skip < 0 || errSize != nil || size < 1 {
		return b.errorReply(http.StatusBadRequest, "BadRequest", "unsupported query options")
	}
	all := s.changed(entitySet, since)
	if v := q.Get("$top"); v != "" {
		top, err := strconv.Atoi(v)
		if err != nil || top < 0 {
			return b.errorReply(http.StatusBadRequest, "BadRequest", "$top must be a whole number")
		}
		all = all[:min(top, len(all))]
	}
	value := []any{}
	for _, rec := range window(all, skip, size) {
		value = append(value, b.body(rec, entitySet))
	}
	out := map[string]any{"@odata.context": "/api/v2.0/$metadata#companies(" + FakeCompanyID + ")/" + entitySet, "value": value}
	if skip+size < len(all) {
		// Absolute, as Business Central's are: the request as it reached the fake's
		// mount (RequestURI keeps any prefix the fake is served under), $skip on.
		u, _ := url.Parse(r.RequestURI)
		next := u.Query()
		next.Set("$skip", strconv.Itoa(skip+size))
		u.RawQuery = strings.ReplaceAll(next.Encode(), "+", "%20")
		out["@odata.nextLink"] = "http://" + r.Host + u.String()
	}
	return jsonReply(http.StatusOK, out)
}

// sfChanges matches connector.SalesforceChangesQuery: sObject, since, limit, offset.
var sfChanges = func() *regexp.Regexp {
	q := regexp.QuoteMeta(connector.SalesforceChangesQuery)
	for _, part := range []struct{ verb, re string }{{"%s", `([A-Za-z0-9_]+)`}, {"%s", `(\S+)`}, {"%d", `(\d+)`}, {"%d", `(\d+)`}} {
		q = strings.Replace(q, part.verb, part.re, 1)
	}
	return regexp.MustCompile("^" + q + "$")
}()

// sfQuery answers the query resource for the changed-since SOQL, as Salesforce answers a
// query: totalSize, done and the records with their attributes.
func (f salesforceFake) query(s *Server, r *http.Request) reply {
	if rep, ok := f.find(s, r.URL.Query().Get("q")); ok {
		return rep
	}
	m := sfChanges.FindStringSubmatch(r.URL.Query().Get("q"))
	if m == nil {
		return f.errorReply(http.StatusBadRequest, "MALFORMED_QUERY", "the fake answers only the changed-since query")
	}
	since, err := time.Parse(time.RFC3339, m[2])
	limit, _ := strconv.Atoi(m[3])
	offset, _ := strconv.Atoi(m[4])
	if err != nil || limit < 1 || limit > 200 || offset > 2000 {
		return f.errorReply(http.StatusBadRequest, "MALFORMED_QUERY", "FIELDS(ALL) needs LIMIT 1 to 200, OFFSET at most 2000, and a datetime literal")
	}
	records := []any{}
	for _, rec := range window(s.changed(m[1], since), offset, limit) {
		records = append(records, f.body(rec, m[1]))
	}
	return jsonReply(http.StatusOK, map[string]any{"totalSize": len(records), "done": true, "records": records})
}

// mcChanges answers GET /3.0/lists/{list}/members?since_last_changed=…: members changed
// after the time (to the second), by last change ascending, count and offset.
func (m mailchimpFake) changes(s *Server, r *http.Request, list string) reply {
	q := r.URL.Query()
	since, err := time.Parse(time.RFC3339, q.Get("since_last_changed"))
	count, errCount := strconv.Atoi(q.Get("count"))
	offset, errOffset := strconv.Atoi(cmp.Or(q.Get("offset"), "0"))
	if err != nil || q.Get("sort_field") != "last_changed" || q.Get("sort_dir") != "ASC" ||
		errCount != nil || count < 1 || count > 1000 || errOffset != nil || offset < 0 {
		return m.errorReply(http.StatusBadRequest, "", "Invalid query parameters.")
	}
	all := s.changed(list, since.Add(time.Second))
	members := []any{}
	for _, rec := range window(all, offset, count) {
		members = append(members, m.body(rec, list))
	}
	return jsonReply(http.StatusOK, map[string]any{"members": members, "list_id": list, "total_items": len(all)})
}

// ssChanges answers GET /orders?modifyDateStart=…&sortBy=ModifyDate&sortDir=ASC (orders
// modified after the start), paged
// by page and pageSize; the date is Pacific time, as ShipStation's are.
func (f shipstationFake) changes(s *Server, r *http.Request) reply {
	q := r.URL.Query()
	since, err := time.ParseInLocation("2006-01-02 15:04:05", q.Get("modifyDateStart"), connector.ShipStationZone())
	size, errSize := strconv.Atoi(cmp.Or(q.Get("pageSize"), "100"))
	page, errPage := strconv.Atoi(cmp.Or(q.Get("page"), "1"))
	if err != nil || q.Get("sortBy") != "ModifyDate" || q.Get("sortDir") != "ASC" ||
		errSize != nil || size < 1 || size > 500 || errPage != nil || page < 1 {
		return f.errorReply(http.StatusBadRequest, "", "The request is invalid.")
	}
	// ShipStation returns the orders modified after the start.
	all := s.changed("orders", since.Add(time.Nanosecond))
	orders := []any{}
	for _, rec := range window(all, (page-1)*size, size) {
		orders = append(orders, f.body(rec, "orders"))
	}
	pages := (len(all) + size - 1) / size
	return jsonReply(http.StatusOK, map[string]any{"orders": orders, "total": len(all), "page": page, "pages": pages})
}
