package connector

// The second-ERP profile follows Microsoft Dynamics 365 Business Central's API v2.0:
//
//   - Update: https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/api/dynamics_customer_update
//     (PATCH {prefix}/api/v2.0/companies({id})/{entitySet}({id}) with the required If-Match,
//     answering 200 with the updated entity)
//   - Entities carry their ETag as "@odata.etag". A stale If-Match is 409 with the code
//     Request_EntityChanged ("Another user has already changed the record.", an
//     ODataConflictException) and a missing one BadRequest_InvalidToken ("Could not
//     validate the client concurrency token required by the service"), both from
//     Microsoft's list of OData/API error codes,
//     https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/webservices/dynamics-error-codes
//     412, HTTP's own answer to a failed If-Match (RFC 9110 §13.1.1), is read the same way.
//   - Errors are OData's {"error":{"code","message"}}. Throttling is 429
//     (https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/dynamics-rate-limits:
//     "adopt a retry logic while providing a cool off period"); the gateway's 502 and 503
//     carry Retry-After, honoured like 429's (the pages name no wait; RFC 9110 §10.2.3).
//   - Auth: OAuth 2.0 bearer tokens from Microsoft Entra ID (client credentials with scope
//     https://api.businesscentral.dynamics.com/.default).
//   - Changed since: the entity set with OData query options,
//     https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/developer/devenv-connect-apps-filtering
//     (GET {entitySet}?$filter=lastModifiedDateTime ge {since}&$orderby=lastModifiedDateTime,id
//     with Prefer: odata.maxpagesize=N), the next page at the answer's @odata.nextLink.
//
// The company is part of Config.BaseURL, which ends in /api/v2.0/companies({companyId}):
// a tenant's connection is to one company, and keeping it in the URL needs no extra field.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type businessCentral struct{}

// bcModified is the entities' modification time, what the changed-since read filters on.
const bcModified = "lastModifiedDateTime"

var (
	bcCompanyPath = regexp.MustCompile(`/api/v2\.0/companies\([^()/]+\)$`)
	guidPattern   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

func (businessCentral) auth() authScheme { return authBearer }

func (businessCentral) check(_ Config, base *url.URL) string {
	if !bcCompanyPath.MatchString(strings.TrimRight(base.EscapedPath(), "/")) {
		return "base URL must end in /api/v2.0/companies({companyId})"
	}
	return ""
}

// entityURL addresses an entity by its key: GUIDs (the v2.0 APIs' ids) bare, anything else
// as an OData string literal.
func (businessCentral) entityURL(c *Client, entitySet, id string) string {
	key := id
	if !guidPattern.MatchString(id) {
		key = "'" + strings.ReplaceAll(id, "'", "''") + "'"
	}
	return c.base + "/" + url.PathEscape(entitySet) + "(" + url.PathEscape(key) + ")"
}

func (b businessCentral) get(ctx context.Context, c *Client, op, entitySet, id string) (Record, error) {
	ans, err := c.do(ctx, op, http.MethodGet, b.entityURL(c, entitySet, id), nil, nil)
	if err != nil {
		return Record{}, err
	}
	return b.decode(c, op, ans, entitySet, id)
}

// decode reads an entity: "@odata.etag" is its version; lastModifiedDateTime, like the
// other vendors' modification stamps, is metadata rather than a field a flow maps.
func (businessCentral) decode(c *Client, op string, ans answer, entitySet, id string) (Record, error) {
	rec, err := c.recordOf(op, ans, entitySet, id, "@odata.etag", "@odata.context", "id", bcModified)
	rec.Version = etagVersion(rec.Version)
	return rec, err
}

// write reads the entity for its ETag, and sends the PATCH with it. A 409
// Request_EntityChanged (or a 412) means someone changed the entity between the read and
// the write: it is read again and, unless the caller pinned a version or the fields now
// hold, written once more. A second one goes to the caller as ErrConflict.
func (b businessCentral) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != "" {
		return WriteResult{}, c.refuse(OpWrite, "upsert by external id is not supported by this system")
	}
	body, _ := json.Marshal(req.Fields)
	for try := 1; ; try++ {
		cur, _, done, err := c.readForWrite(ctx, b, req, false)
		if err != nil || done {
			return WriteResult{Record: cur, Replayed: done}, err
		}
		hdr := writeHeaders(req)
		hdr.Set("If-Match", `W/"`+cur.Version+`"`)
		ans, err := c.do(ctx, OpWrite, http.MethodPatch, b.entityURL(c, req.Entity, req.RecordID), body, hdr)
		if err == nil {
			rec, err := b.decode(c, OpWrite, ans, req.Entity, req.RecordID)
			return WriteResult{Record: rec}, err
		}
		if try == 1 && req.IfVersion == "" && bcEntityChanged(err) {
			continue
		}
		return WriteResult{}, err
	}
}

// bcEntityChanged says a PATCH failed on a stale ETag: 409 with Request_EntityChanged
// (409 with another code, such as Internal_EntityWithSameKeyExists, is not a stale read),
// or 412.
func bcEntityChanged(err error) bool {
	var ce *Error
	if !errors.As(err, &ce) {
		return false
	}
	return ce.Status == http.StatusConflict && ce.Code == bcCodeEntityChanged || ce.Status == http.StatusPreconditionFailed
}

// bcCodeEntityChanged is Business Central's code for a stale ETag.
const bcCodeEntityChanged = "Request_EntityChanged"

// failure reads OData's error body; Business Central's codes (Request_EntityChanged,
// Internal_RecordNotFound, Authentication_InvalidCredentials) pass, messages do not. A
// 502's Retry-After is honoured as 429's and 503's are.
func (businessCentral) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	f := standardFailure(status, h, e.Error.Code, now)
	if status == http.StatusBadGateway {
		f.retryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	}
	return f
}

// changes reads one page of the entity set filtered on lastModifiedDateTime. The cursor
// is the answer's @odata.nextLink, followed only when it is under this connection's base
// URL: a next link elsewhere would carry the token there.
func (b businessCentral) changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error) {
	target := q.cursor
	if target == "" {
		opts := url.Values{}
		opts.Set("$filter", bcModified+" ge "+q.since.Format("2006-01-02T15:04:05.000Z"))
		opts.Set("$orderby", bcModified+",id")
		// OData wants spaces as %20; Encode writes them as '+'.
		target = c.base + "/" + url.PathEscape(q.entity) + "?" + strings.ReplaceAll(opts.Encode(), "+", "%20")
	} else if !strings.HasPrefix(target, c.base+"/"+url.PathEscape(q.entity)+"?") {
		return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
	}
	var res struct {
		Value    []json.RawMessage `json:"value"`
		NextLink string            `json:"@odata.nextLink"`
	}
	// The page size is a preference, sent with every page: $top would cap the whole
	// result, and the answer would carry no next link.
	hdr := http.Header{}
	hdr.Set("Prefer", "odata.maxpagesize="+strconv.Itoa(pageSize(q.limit, 100, 1000)))
	ans, err := c.getJSON(ctx, OpChanges, target, hdr, &res)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{NextCursor: res.NextLink}
	page.Changes, err = c.changesIn(ans, res.Value, q.since, listing{idKey: "id", stampKey: bcModified, zone: time.UTC,
		layouts: []string{time.RFC3339Nano}, decode: func(body []byte, id string) (Record, error) {
			return b.decode(c, OpChanges, answer{body: body}, q.entity, id)
		}})
	if err != nil {
		return ChangePage{}, err
	}
	return page, nil
}

// etagVersion is an ETag without its weak marker and quotes; BC's ETags are always weak.
func etagVersion(etag string) string {
	etag = strings.TrimPrefix(strings.TrimSpace(etag), "W/")
	return strings.Trim(etag, `"`)
}
