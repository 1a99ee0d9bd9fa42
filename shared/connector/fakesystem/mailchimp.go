package fakesystem

import (
	"net/http"

	"github.com/syncassist/syncassist/shared/connector"
)

// mailchimpFake plays Mailchimp's list members: GET and PUT (upsert) by subscriber hash.
type mailchimpFake struct{}

// mailchimpTime is how Mailchimp writes last_changed: UTC with its offset spelled out.
const mailchimpTime = "2006-01-02T15:04:05+00:00"

func (mailchimpFake) version(rec *record) string {
	return rec.modified.Format(mailchimpTime)
}

// authorized takes HTTP Basic (any user, the key as password) or a bearer token.
func (mailchimpFake) authorized(h, cred string) bool {
	if bearer(h, cred) || basic(h, cred) {
		return true
	}
	return basic(h, "anystring:"+cred)
}

// key stores members by subscriber hash, so an e-mail and its hash find the same member.
func (mailchimpFake) key(id string) string { return connector.SubscriberHash(id) }

var mailchimpTitles = map[int]string{400: "Invalid Resource", 401: "API Key Invalid", 403: "Forbidden",
	404: "Resource Not Found", 405: "Method Not Allowed", 429: "Too Many Requests", 500: "Internal Server Error"}

// errorReply is Mailchimp's problem+json; the title is the code.
func (mailchimpFake) errorReply(status int, code, message string) reply {
	title := mailchimpTitles[status]
	if code != "" && code != "unauthorized" {
		title = code
	}
	rep := jsonReply(status, map[string]any{"type": "https://mailchimp.com/developer/marketing/docs/errors/",
		"title": title, "status": status, "detail": message, "instance": "00000000-fake-0000-0000-000000000000"})
	rep.header.Set("Content-Type", "application/problem+json")
	return rep
}

func (m mailchimpFake) route(s *Server, r *http.Request, body []byte) reply {
	if segs, ok := pathSegments(r.URL.EscapedPath(), "/3.0/lists/", 2); ok && segs[1] == "members" && r.Method == http.MethodGet {
		return m.changes(s, r, segs[0])
	}
	if segs, ok := pathSegments(r.URL.EscapedPath(), "/3.0/lists/", 2); ok && segs[1] == "members" && r.Method == http.MethodPost {
		return m.create(s, r, segs[0], body)
	}
	segs, ok := pathSegments(r.URL.EscapedPath(), "/3.0/lists/", 3)
	if !ok || segs[1] != "members" {
		return m.errorReply(http.StatusNotFound, "", "The requested resource could not be found.")
	}
	list, hash := segs[0], segs[2]
	switch r.Method {
	case http.MethodGet:
		rec := s.lookup(list, hash, true)
		if rec == nil {
			return m.errorReply(http.StatusNotFound, "", "The requested resource could not be found.")
		}
		return m.member(rec, list)
	case http.MethodPut:
		return m.put(s, r, list, hash, body)
	default:
		return m.errorReply(http.StatusMethodNotAllowed, "", "method not allowed")
	}
}

// put adds or updates a member. A new member needs email_address (whose hash is the
// path's) and status_if_new; status_if_new is not a member field.
func (m mailchimpFake) put(s *Server, r *http.Request, list, hash string, body []byte) reply {
	fields, ok := decodeBody(body)
	if !ok {
		return m.errorReply(http.StatusBadRequest, "", "The request body is not a member.")
	}
	statusIfNew, _ := fields["status_if_new"].(string)
	delete(fields, "status_if_new")
	email, _ := fields["email_address"].(string)
	if email != "" && connector.SubscriberHash(email) != hash {
		return m.errorReply(http.StatusBadRequest, "", "The email address does not match the subscriber hash.")
	}
	rec := s.lookup(list, hash, false)
	if rec == nil {
		if email == "" || statusIfNew == "" {
			return m.errorReply(http.StatusBadRequest, "", "A new member needs email_address and status_if_new.")
		}
		if _, ok := fields["status"]; !ok {
			fields["status"] = statusIfNew
		}
		rec = s.newRecord(email)
		s.records[recordKey{list, hash}] = rec
	}
	if len(fields) > 0 {
		s.apply(r, list, rec, mergeFields(rec.fields, fields))
	}
	return m.member(rec, list)
}

// mergeFields is what a write sets: nested objects (merge_fields) are merged.
func mergeFields(have, want map[string]any) map[string]any {
	out := make(map[string]any, len(want))
	for k, w := range want {
		hm, ok1 := have[k].(map[string]any)
		wm, ok2 := w.(map[string]any)
		if ok1 && ok2 {
			merged := cloneMap(hm)
			for mk, mv := range mergeFields(hm, wm) {
				merged[mk] = mv
			}
			out[k] = merged
			continue
		}
		out[k] = w
	}
	return out
}

func (m mailchimpFake) member(rec *record, list string) reply {
	return jsonReply(http.StatusOK, m.body(rec, list))
}

func (m mailchimpFake) body(rec *record, list string) map[string]any {
	out := cloneMap(rec.fields)
	out["id"] = connector.SubscriberHash(rec.id)
	out["list_id"] = list
	out["last_changed"] = m.version(rec)
	out["_links"] = []any{}
	return out
}
