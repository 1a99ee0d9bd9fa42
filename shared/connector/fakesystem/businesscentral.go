package fakesystem

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// bcFake plays Business Central's API v2.0 for one company (FakeCompanyID).
type bcFake struct{}

// bcTime is how Business Central writes lastModifiedDateTime.
const bcTime = "2006-01-02T15:04:05.000Z"

// version is a weak ETag's opaque part; Business Central's are base64 text too.
func (bcFake) version(rec *record) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "'%d;'", rec.version))
}
func (bcFake) authorized(h, cred string) bool { return bearer(h, cred) }
func (bcFake) key(id string) string           { return id }

// errorReply is OData's error body. The codes are those of Microsoft's list
// (https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/webservices/dynamics-error-codes),
// except 429's Application_TooManyRequests, which the list does not name but the service
// answers throttling with ("Too many requests reached. Actual (101). Maximum (100).").
func (bcFake) errorReply(status int, code, message string) reply {
	if code == "" || code == "unauthorized" {
		code = map[int]string{400: "BadRequest", 401: "Authentication_InvalidCredentials", 404: "BadRequest_NotFound",
			409: "Request_EntityChanged", 429: "Application_TooManyRequests", 500: "Internal_ServerError"}[status]
	}
	return jsonReply(status, map[string]any{"error": map[string]string{"code": code, "message": message}})
}

func (b bcFake) route(s *Server, r *http.Request, body []byte) reply {
	if set, ok := bcSetPath(r.URL.EscapedPath()); ok && r.Method == http.MethodGet {
		if rep, ok := b.find(s, r, set); ok {
			return rep
		}
		return b.changes(s, r, set)
	}
	if set, ok := bcSetPath(r.URL.EscapedPath()); ok && r.Method == http.MethodPost {
		return b.create(s, r, set, body)
	}
	entitySet, id, ok := bcEntityPath(r.URL.EscapedPath())
	if !ok {
		return b.errorReply(http.StatusNotFound, "BadRequest_NotFound", "no such resource")
	}
	switch r.Method {
	case http.MethodGet:
		rec := s.lookup(entitySet, id, true)
		if rec == nil {
			return b.errorReply(http.StatusNotFound, "BadRequest_NotFound", fmt.Sprintf("%s %s does not exist", entitySet, id))
		}
		return b.entity(rec, entitySet)
	case http.MethodPatch:
		return b.patch(s, r, entitySet, id, body)
	default:
		return b.errorReply(http.StatusMethodNotAllowed, "BadRequest_MethodNotAllowed", "method not allowed")
	}
}

// patch applies a partial update. If-Match is required: without one the answer is
// BadRequest_InvalidToken (the list gives no status; 400, its BadRequest_ family's, is
// assumed), a stale one 409 Request_EntityChanged (an ODataConflictException).
func (b bcFake) patch(s *Server, r *http.Request, entitySet, id string, body []byte) reply {
	fields, ok := decodeBody(body)
	if !ok || len(fields) == 0 {
		return b.errorReply(http.StatusBadRequest, "BadRequest", "the request body is not an entity")
	}
	rec := s.lookup(entitySet, id, false)
	if rec == nil {
		return b.errorReply(http.StatusNotFound, "BadRequest_NotFound", fmt.Sprintf("%s %s does not exist", entitySet, id))
	}
	match := r.Header.Get("If-Match")
	switch {
	case match == "":
		return b.errorReply(http.StatusBadRequest, "BadRequest_InvalidToken",
			"Could not validate the client concurrency token required by the service. Please provide a valid token in the client request.")
	case match != "*" && match != `W/"`+b.version(rec)+`"`:
		return b.errorReply(http.StatusConflict, "Request_EntityChanged", "Another user has already changed the record.")
	}
	s.apply(r, entitySet, rec, fields)
	return b.entity(rec, entitySet)
}

func (b bcFake) entity(rec *record, entitySet string) reply {
	out := b.body(rec, entitySet)
	out["@odata.context"] = "/api/v2.0/$metadata#companies(" + FakeCompanyID + ")/" + entitySet + "/$entity"
	rep := jsonReply(http.StatusOK, out)
	rep.header.Set("ETag", out["@odata.etag"].(string))
	return rep
}

// body is an entity as Business Central renders it in an entity set or on its own.
func (b bcFake) body(rec *record, _ string) map[string]any {
	out := cloneMap(rec.fields)
	out["@odata.etag"] = `W/"` + b.version(rec) + `"`
	out["id"] = rec.id
	out["lastModifiedDateTime"] = rec.modified.Format(bcTime)
	return out
}

// bcSetPath reads /api/v2.0/companies({company})/{entitySet}, an entity set itself.
func bcSetPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/api/v2.0/companies("+url.PathEscape(FakeCompanyID)+")/")
	if !ok {
		rest, ok = strings.CutPrefix(path, "/api/v2.0/companies("+FakeCompanyID+")/")
	}
	if !ok || rest == "" || strings.ContainsAny(rest, "()/") {
		return "", false
	}
	set, err := url.PathUnescape(rest)
	return set, err == nil
}

// bcEntityPath reads /api/v2.0/companies({company})/{entitySet}({key}); a string key is
// an OData literal (quoted, with a quote doubled). The escaped path is read, so a key holding
// parentheses or slashes (escaped by the client) cannot confuse it.
func bcEntityPath(path string) (entitySet, id string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/api/v2.0/companies("+url.PathEscape(FakeCompanyID)+")/")
	if !ok {
		rest, ok = strings.CutPrefix(path, "/api/v2.0/companies("+FakeCompanyID+")/")
	}
	open := strings.IndexByte(rest, '(')
	if !ok || open <= 0 || !strings.HasSuffix(rest, ")") || strings.Contains(rest, "/") {
		return "", "", false
	}
	set, err1 := url.PathUnescape(rest[:open])
	key, err2 := url.PathUnescape(rest[open+1 : len(rest)-1])
	if err1 != nil || err2 != nil || key == "" {
		return "", "", false
	}
	if len(key) >= 2 && key[0] == '\'' && key[len(key)-1] == '\'' {
		key = strings.ReplaceAll(key[1:len(key)-1], "''", "'")
	}
	return set, key, key != ""
}
