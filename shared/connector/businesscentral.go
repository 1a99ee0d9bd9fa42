package connector

// The second-ERP profile follows Microsoft Dynamics 365 Business Central's API v2.0:
//
//   - Update: https://learn.microsoft.com/en-us/dynamics365/business-central/dev-itpro/api-reference/v2.0/api/dynamics_customer_update
//     (PATCH {prefix}/api/v2.0/companies({id})/{entitySet}({id}) with the required If-Match,
//     answering 200 with the updated entity)
//   - Entities carry their ETag as "@odata.etag"; a stale one is answered 412.
//   - Errors are OData's {"error":{"code","message"}}; throttling is 429 with Retry-After.
//   - Auth: OAuth 2.0 bearer tokens from Microsoft Entra ID (client credentials with scope
//     https://api.businesscentral.dynamics.com/.default).
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
	"strings"
	"time"
)

type businessCentral struct{}

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

func (businessCentral) decode(c *Client, op string, ans answer, entitySet, id string) (Record, error) {
	rec, err := c.recordOf(op, ans, entitySet, id, "@odata.etag", "@odata.context", "id")
	rec.Version = etagVersion(rec.Version)
	return rec, err
}

// write reads the entity for its ETag, and sends the PATCH with it. A 412 means someone
// changed the entity between the read and the write: it is read again and, unless the
// caller pinned a version or the fields now hold, written once more. A second 412 goes to
// the caller as ErrConflict.
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
		var ce *Error
		if try == 1 && req.IfVersion == "" && errors.As(err, &ce) && ce.Status == http.StatusPreconditionFailed {
			continue
		}
		return WriteResult{}, err
	}
}

// failure reads OData's error body; Business Central's codes (Request_EntityChanged,
// Internal_RecordNotFound, Application_TooManyRequests) pass, messages do not.
func (businessCentral) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return standardFailure(status, h, e.Error.Code, now)
}

// etagVersion is an ETag without its weak marker and quotes; BC's ETags are always weak.
func etagVersion(etag string) string {
	etag = strings.TrimPrefix(strings.TrimSpace(etag), "W/")
	return strings.Trim(etag, `"`)
}
