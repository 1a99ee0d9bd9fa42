package fakesystem

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
)

// netsuiteFake plays NetSuite's REST record service and SuiteQL.
type netsuiteFake struct{}

const (
	nsRecordPrefix = "/services/rest/record/v1/"
	nsSuiteQLPath  = "/services/rest/query/v1/suiteql"
)

// netsuiteTime is how NetSuite's record service writes lastModifiedDate.
const netsuiteTime = "2006-01-02T15:04:05Z"

func (netsuiteFake) version(rec *record) string {
	return rec.modified.Format(netsuiteTime)
}
func (netsuiteFake) authorized(h, cred string) bool { return bearer(h, cred) }
func (netsuiteFake) key(id string) string           { return id }

// errorReply is NetSuite's error body, as "Error Handling in REST Web Services"
// (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156570709583.html)
// shows it: {"type","title","status","o:errorDetails":[{"detail","o:errorCode"}]}, type
// the status's section of RFC 2616 (netsuiteErrorType).
func (netsuiteFake) errorReply(status int, code, message string) reply {
	if code == "" || code == "unauthorized" {
		code = map[int]string{401: "INVALID_LOGIN", 404: "NONEXISTENT_ID", 429: "CONCURRENCY_LIMIT_EXCEEDED"}[status]
	}
	rep := jsonReply(status, map[string]any{
		"type": netsuiteErrorType(status), "title": http.StatusText(status), "status": status,
		"o:errorDetails": []map[string]string{{"detail": message, "o:errorCode": code}},
	})
	rep.header.Set("Content-Type", "application/vnd.oracle.resource+json; type=error")
	return rep
}

// netsuiteErrorType is the type URL of an error answer. Oracle's examples: 400 is
// https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1 and 401 the page
// without a section. That other statuses name their section of RFC 2616 §10 the same way
// (404 #sec10.4.5, 500 #sec10.5.1) is an assumption; 429 is not in RFC 2616 and gets the
// page alone.
func netsuiteErrorType(status int) string {
	const page = "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html"
	switch {
	case status == http.StatusUnauthorized, status == http.StatusTooManyRequests:
		return page
	case status >= 400 && status <= 417:
		return page + "#sec10.4." + strconv.Itoa(status-399)
	case status >= 500 && status <= 505:
		return page + "#sec10.5." + strconv.Itoa(status-499)
	}
	return page
}

func (n netsuiteFake) route(s *Server, r *http.Request, body []byte) reply {
	path := r.URL.EscapedPath()
	if path == nsSuiteQLPath {
		if r.Method != http.MethodPost {
			return n.errorReply(http.StatusMethodNotAllowed, "INVALID_REQUEST", "method not allowed")
		}
		return n.suiteQL(s, r, body)
	}
	if segs, ok := pathSegments(path, nsRecordPrefix, 1); ok && r.Method == http.MethodPost {
		return n.create(s, r, segs[0], body)
	}
	segs, ok := pathSegments(path, nsRecordPrefix, 2)
	if ok && strings.HasPrefix(segs[1], "eid:") {
		return n.byExternalID(s, r, segs[0], strings.TrimPrefix(segs[1], "eid:"), body)
	}
	if !ok {
		return n.errorReply(http.StatusNotFound, "INVALID_URL", "no such resource")
	}
	switch r.Method {
	case http.MethodGet:
		rec := s.lookup(segs[0], segs[1], true)
		if rec == nil {
			// The detail quotes the id, as NetSuite's does, so tests can check the client
			// keeps details out of its errors.
			return n.errorReply(http.StatusNotFound, "NONEXISTENT_ID", fmt.Sprintf("Record %s %s was not found.", segs[0], segs[1]))
		}
		return jsonReply(http.StatusOK, n.renderRecord(rec, path, expandSubResources(r)))
	case http.MethodPatch:
		fields, ok := decodeBody(body)
		if !ok || len(fields) == 0 {
			return n.errorReply(http.StatusBadRequest, "INVALID_CONTENT", "the request body is not a record")
		}
		rec := s.lookup(segs[0], segs[1], false)
		if rec == nil {
			return n.errorReply(http.StatusNotFound, "NONEXISTENT_ID", fmt.Sprintf("Record %s %s was not found.", segs[0], segs[1]))
		}
		s.apply(r, segs[0], rec, patchSublists(r, rec, fields))
		rep := reply{status: http.StatusNoContent, header: http.Header{}}
		rep.header.Set("Location", path)
		return rep
	default:
		return n.errorReply(http.StatusMethodNotAllowed, "INVALID_REQUEST", "method not allowed")
	}
}

// pathSegments cuts prefix off path and returns exactly n unescaped, non-empty segments.
func pathSegments(path, prefix string, n int) ([]string, bool) {
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return nil, false
	}
	segs := strings.Split(rest, "/")
	if len(segs) != n {
		return nil, false
	}
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" {
			return nil, false
		}
		segs[i] = v
	}
	return segs, true
}

var sinceClause = regexp.MustCompile(`^ WHERE SUBSTR\(custrecord_sea_occurred_at, 1, 19\) >= '(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)'$`)

// suiteQL answers the one query the host ERP profile runs (connector.SyncErrorQuery),
// paged as NetSuite pages: limit 1..1000, offset a multiple of limit, hasMore.
func (n netsuiteFake) suiteQL(s *Server, r *http.Request, body []byte) reply {
	if r.Header.Get("Prefer") != "transient" {
		return n.errorReply(http.StatusBadRequest, "INVALID_HEADER", "SuiteQL needs the header Prefer: transient")
	}
	limit, offset, ok := pageParams(r.URL.Query())
	if !ok {
		return n.errorReply(http.StatusBadRequest, "INVALID_PARAMETER", "limit must be 1 to 1000 and offset a multiple of it")
	}
	var q struct {
		Q string `json:"q"`
	}
	if json.Unmarshal(body, &q) != nil {
		return n.errorReply(http.StatusBadRequest, "INVALID_CONTENT", "body must be {\"q\": ...}")
	}
	found, ok := s.netsuiteChangeRows(q.Q)
	if !ok {
		found, ok = s.netsuiteFindRows(q.Q)
	}
	if ok {
		page := window(found, offset, limit)
		return jsonReply(http.StatusOK, map[string]any{"links": []any{}, "count": len(page), "hasMore": offset+limit < len(found),
			"items": page, "offset": offset, "totalResults": len(found)})
	}
	since, ok := syncErrorSince(q.Q)
	if !ok {
		return n.errorReply(http.StatusBadRequest, "INVALID_PARAMETER", "the fake answers only the sync-error query")
	}
	var rows []map[string]any
	for _, e := range s.syncErrors {
		if e.occurredAt.UTC().Format("2006-01-02T15:04:05") >= since {
			rows = append(rows, syncErrorRow(e))
		}
	}
	page := rows[min(offset, len(rows)):min(offset+limit, len(rows))]
	return jsonReply(http.StatusOK, map[string]any{
		"links": []any{}, "count": len(page), "hasMore": offset+limit < len(rows),
		"items": append([]map[string]any{}, page...), "offset": offset, "totalResults": len(rows),
	})
}

func pageParams(q url.Values) (limit, offset int, ok bool) {
	limit, offset = 1000, 0
	var err error
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return 0, 0, false
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 || offset%limit != 0 {
			return 0, 0, false
		}
	}
	return limit, offset, true
}

// syncErrorSince recognises the profile's query and returns its since bound ("" for none).
func syncErrorSince(q string) (string, bool) {
	head, tail, ok := strings.Cut(connector.SyncErrorQuery, "%s")
	if !ok {
		return "", false
	}
	where, ok1 := strings.CutPrefix(q, head)
	where, ok2 := strings.CutSuffix(where, tail)
	if !ok1 || !ok2 {
		return "", false
	}
	if where == "" {
		return "", true
	}
	m := sinceClause.FindStringSubmatch(where)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// syncErrorRow is the custom record's row for an error given in the ingest format, as
// SuiteQL returns it: column names lower-case, values as text, empty columns left out,
// the payload as JSON text (or the text it was given as).
func syncErrorRow(e syncError) map[string]any {
	raw := e.raw
	row := map[string]any{"links": []any{}, "id": strconv.Itoa(e.internalID)}
	for key, col := range map[string]string{
		"errorId": "custrecord_sea_error_id", "recordType": "custrecord_sea_record_type", "recordId": "custrecord_sea_record_id",
		"errorCode": "custrecord_sea_error_code", "message": "custrecord_sea_message", "occurredAt": "custrecord_sea_occurred_at",
		"externalSystem": "custrecord_sea_external_system", "direction": "custrecord_sea_direction",
	} {
		if v, ok := raw[key].(string); ok && v != "" {
			row[col] = v
		}
	}
	switch p := raw["payload"].(type) {
	case nil:
	case string:
		if p != "" {
			row["custrecord_sea_payload"] = p
		}
	default:
		text, _ := json.Marshal(p)
		row["custrecord_sea_payload"] = string(text)
	}
	return row
}
