package fakesystem

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// salesforceFake plays Salesforce's sObject Rows and sObject Rows by External ID.
type salesforceFake struct{}

const (
	sfPrefix    = "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/"
	sfQueryPath = "/services/data/v" + connector.SalesforceAPIVersion + "/query"
)

// salesforceTime is how Salesforce writes SystemModstamp.
const salesforceTime = "2006-01-02T15:04:05.000+0000"

func (salesforceFake) version(rec *record) string {
	return rec.modified.Format(salesforceTime)
}
func (salesforceFake) authorized(h, cred string) bool { return bearer(h, cred) }
func (salesforceFake) key(id string) string           { return id }

// errorReply is Salesforce's error array.
func (salesforceFake) errorReply(status int, code, message string) reply {
	if code == "" || code == "unauthorized" {
		code = map[int]string{401: "INVALID_SESSION_ID", 404: "NOT_FOUND"}[status]
	}
	return jsonReply(status, []map[string]any{{"message": message, "errorCode": code, "fields": []string{}}})
}

func (f salesforceFake) route(s *Server, r *http.Request, body []byte) reply {
	path := r.URL.EscapedPath()
	if path == sfQueryPath && r.Method == http.MethodGet {
		return f.query(s, r)
	}
	if segs, ok := pathSegments(strings.TrimSuffix(path, "/"), sfPrefix, 1); ok && r.Method == http.MethodPost {
		return f.create(s, r, segs[0], body)
	}
	if segs, ok := pathSegments(path, sfPrefix, 2); ok {
		return f.row(s, r, segs[0], segs[1], body)
	}
	if segs, ok := pathSegments(path, sfPrefix, 3); ok {
		return f.byExternalID(s, r, segs[0], segs[1], segs[2], body)
	}
	return f.errorReply(http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
}

func (f salesforceFake) row(s *Server, r *http.Request, sobject, id string, body []byte) reply {
	switch r.Method {
	case http.MethodGet:
		rec := s.lookup(sobject, id, true)
		if rec == nil {
			return f.errorReply(http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		}
		return f.render(rec, sobject)
	case http.MethodPatch:
		fields, ok := decodeBody(body)
		if !ok {
			return f.errorReply(http.StatusBadRequest, "JSON_PARSER_ERROR", "the body is not a JSON object")
		}
		rec := s.lookup(sobject, id, false)
		if rec == nil {
			return f.errorReply(http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		}
		if rep, failed := f.unmodifiedSince(r, rec); failed {
			return rep
		}
		if rep, locked := f.lockRefusal(s, sobject, rec.id, fields); locked {
			return rep
		}
		s.apply(r, sobject, rec, sfStored(fields))
		return reply{status: http.StatusNoContent, header: http.Header{}}
	default:
		return f.errorReply(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed")
	}
}

// unmodifiedSince plays the REST API's conditional PATCH
// (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_rest_conditional_requests.htm):
// a record modified after If-Unmodified-Since is 412 and not written, a value that is no
// HTTP date 400. The page documents the statuses only; the error array with an empty
// errorCode is assumed. The comparison is to the second, an HTTP date's resolution.
func (f salesforceFake) unmodifiedSince(r *http.Request, rec *record) (reply, bool) {
	v := r.Header.Get("If-Unmodified-Since")
	if v == "" {
		return reply{}, false
	}
	since, err := http.ParseTime(v)
	if err != nil {
		return f.errorReply(http.StatusBadRequest, "", "If-Unmodified-Since is not an HTTP date"), true
	}
	if rec.modified.Truncate(time.Second).After(since) {
		return f.errorReply(http.StatusPreconditionFailed, "", "The record was modified after "+v), true
	}
	return reply{}, false
}

// byExternalID reads or upserts the record whose field holds value: 201 when created, 200
// (created false) when updated, 300 when several match.
func (f salesforceFake) byExternalID(s *Server, r *http.Request, sobject, field, value string, body []byte) reply {
	var matches []*record
	for k, rec := range s.records {
		if k.entity == sobject && fmt.Sprint(rec.fields[field]) == value {
			matches = append(matches, rec)
		}
	}
	if len(matches) > 1 {
		// "The response body contains the list of matching records" (errorcodes.htm): their
		// sObject Rows URLs.
		urls := make([]string, 0, len(matches))
		for _, m := range matches {
			urls = append(urls, sfPrefix+sobject+"/"+m.id)
		}
		slices.Sort(urls)
		return jsonReply(http.StatusMultipleChoices, urls)
	}
	switch r.Method {
	case http.MethodGet:
		if len(matches) == 0 {
			return f.errorReply(http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		}
		return f.render(s.lookup(sobject, matches[0].id, true), sobject)
	case http.MethodPatch:
		fields, ok := decodeBody(body)
		_, hasID := fields["Id"]
		_, hasKey := fields[field]
		if !ok || hasID || hasKey {
			return f.errorReply(http.StatusBadRequest, "INVALID_FIELD", "the body must not name Id or the external id field")
		}
		target := ""
		if len(matches) == 1 {
			target = matches[0].id
		}
		if rep, locked := f.lockRefusal(s, sobject, target, fields); locked {
			return rep
		}
		fields = sfStored(fields)
		if len(matches) == 1 {
			s.apply(r, sobject, matches[0], fields)
			return jsonReply(http.StatusOK, map[string]any{"id": matches[0].id, "success": true, "errors": []any{}, "created": false})
		}
		s.nextID++
		rec := s.newRecord("001FAKE" + strconv.Itoa(s.nextID))
		rec.fields[field] = value
		s.records[recordKey{sobject, rec.id}] = rec
		s.apply(r, sobject, rec, fields)
		return jsonReply(http.StatusCreated, map[string]any{"id": rec.id, "success": true, "errors": []any{}, "created": true})
	default:
		return f.errorReply(http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed")
	}
}

// sfDateTime is a date-time a write sends in one of the forms Salesforce takes for a
// dateTime field, yyyy-MM-ddTHH:mm:ss(.SSS)(Z|+/-HH:mm)
// (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_valid_date_formats.htm).
var sfDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$`)

// sfStored is what Salesforce keeps of a write's fields: a date-time is kept as an instant
// and answered in UTC with milliseconds, yyyy-MM-ddTHH:mm:ss.SSS+0000, the form of its
// LastModifiedDate and SystemModstamp (what the connector reads them in), not in the text
// it was sent. Assumption, named: that a custom dateTime field answers in that same form
// (no page shows one's answer); and the fake, having no field types, takes any string of
// a date-time's form for a dateTime field.
func sfStored(fields map[string]any) map[string]any {
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		if s, ok := v.(string); ok && sfDateTime.MatchString(s) {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				v = t.UTC().Format(salesforceTime)
			}
		}
		out[k] = v
	}
	return out
}

func (f salesforceFake) render(rec *record, sobject string) reply {
	return jsonReply(http.StatusOK, f.body(rec, sobject))
}

func (f salesforceFake) body(rec *record, sobject string) map[string]any {
	out := cloneMap(rec.fields)
	out["attributes"] = map[string]string{"type": sobject, "url": sfPrefix + sobject + "/" + rec.id}
	out["Id"] = rec.id
	out["SystemModstamp"] = f.version(rec)
	out["LastModifiedDate"] = f.version(rec)
	return out
}

// isNumeric says whether an id is all digits (ShipStation's ids are numbers).
func isNumeric(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
