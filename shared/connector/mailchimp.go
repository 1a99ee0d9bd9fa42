package connector

// The marketing profile follows the Mailchimp Marketing API 3.0:
//
//   - Add or update list member: https://mailchimp.com/developer/marketing/api/list-members/add-or-update-list-member/
//     (PUT /3.0/lists/{list_id}/members/{subscriber_hash}, an upsert answering 200 with the
//     member; subscriber_hash is the MD5 of the lower-cased e-mail address)
//   - Errors: https://mailchimp.com/developer/marketing/docs/errors/ (problem+json:
//     "type", "title", "status", "detail", "instance"; 429 TooManyRequests when too many
//     connections)
//   - Limits: https://mailchimp.com/developer/marketing/docs/fundamentals/ (each user
//     account may hold up to 10 simultaneous connections; the 429 beyond carries no
//     Retry-After, so the client's backoff applies). Ten is the account's, not a client's:
//     every function writing to one account shares it.
//   - Auth: HTTP Basic with any user name and the API key as password, or a bearer token.
//   - Changed since: list members, https://mailchimp.com/developer/marketing/api/list-members/list-members-info/
//     (GET /3.0/lists/{list_id}/members?since_last_changed=…&sort_field=last_changed
//     &sort_dir=ASC&count=N&offset=M, answering {"members","total_items"}; count at most
//     1000). since_last_changed keeps members changed after the time, to the second, so
//     the read asks from a second earlier and drops what is before since.
//
// Config.BaseURL is the account's data-centre root (https://us6.api.mailchimp.com). A
// record's entity is the audience (list) id and its id the member's e-mail address, or its
// subscriber hash when the address is not at hand.

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type mailchimp struct{}

var subscriberHashPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (mailchimp) auth() authScheme              { return authBasicOrBearer }
func (mailchimp) check(Config, *url.URL) string { return "" }

// SubscriberHash is Mailchimp's member key: the MD5 of the lower-cased e-mail address. An
// id that already is a hash is kept.
func SubscriberHash(emailOrHash string) string {
	if subscriberHashPattern.MatchString(emailOrHash) {
		return emailOrHash
	}
	sum := md5.Sum([]byte(strings.ToLower(emailOrHash)))
	return hex.EncodeToString(sum[:])
}

func (mailchimp) memberURL(c *Client, listID, id string) string {
	return c.base + "/3.0/lists/" + url.PathEscape(listID) + "/members/" + SubscriberHash(id)
}

func (m mailchimp) get(ctx context.Context, c *Client, op, listID, id string) (Record, error) {
	ans, err := c.do(ctx, op, http.MethodGet, m.memberURL(c, listID, id), nil, nil)
	if err != nil {
		return Record{}, err
	}
	return m.decode(c, op, ans, listID, id)
}

// decode keeps the member's own properties; last_changed is its version.
func (mailchimp) decode(c *Client, op string, ans answer, listID, id string) (Record, error) {
	return c.recordOf(op, ans, listID, id, "last_changed", "_links", "id", "list_id")
}

// write is read-compare-write over Mailchimp's upsert. A member that does not exist yet is
// created when the id is an e-mail address; as the API requires, a new member needs a
// status, status_if_new, which defaults to "pending" (double opt-in: the person confirms)
// unless the write sets a status.
func (m mailchimp) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	// A flow maps merge fields one by one ("merge_fields.FNAME"); the member has them in
	// one object, which the read-compare below compares as a subset.
	req.Fields = nestMergeFields(req.Fields)
	if req.UpsertKey != "" {
		return m.upsert(ctx, c, req)
	}
	res, _, err := m.put(ctx, c, req)
	return res, err
}

// put is write, also saying whether the member existed before.
func (m mailchimp) put(ctx context.Context, c *Client, req writeOp) (WriteResult, bool, error) {
	isEmail := !subscriberHashPattern.MatchString(req.RecordID)
	cur, exists, done, err := c.readForWrite(ctx, m, req, isEmail)
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, exists, err
	}
	data, err := json.Marshal(memberBody(req, isEmail, "status_if_new"))
	if err != nil {
		return WriteResult{}, exists, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	ans, err := c.do(ctx, OpWrite, http.MethodPut, m.memberURL(c, req.Entity, req.RecordID), data, writeHeaders(req))
	if err != nil {
		return WriteResult{}, exists, err
	}
	rec, err := m.decode(c, OpWrite, ans, req.Entity, req.RecordID)
	return WriteResult{Record: rec}, exists, err
}

// mailchimpMaxCount is the list members endpoint's largest page.
const mailchimpMaxCount = 1000

// changes reads one page of the audience's members by last change, oldest first.
func (m mailchimp) changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error) {
	offset, ok := parseOffset(q.cursor)
	if !ok {
		return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
	}
	count := pageSize(q.limit, 100, mailchimpMaxCount)
	opts := url.Values{}
	opts.Set("since_last_changed", q.since.Truncate(time.Second).Add(-time.Second).Format(MailchimpTimeLayout))
	opts.Set("sort_field", "last_changed")
	opts.Set("sort_dir", "ASC")
	opts.Set("count", strconv.Itoa(count))
	opts.Set("offset", strconv.Itoa(offset))
	target := c.base + "/3.0/lists/" + url.PathEscape(q.entity) + "/members?" + opts.Encode()
	var res struct {
		Members    []json.RawMessage `json:"members"`
		TotalItems int               `json:"total_items"`
	}
	ans, err := c.getJSON(ctx, OpChanges, target, nil, &res)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{}
	if len(res.Members) > 0 && offset+len(res.Members) < res.TotalItems {
		page.NextCursor = offsetCursor(offset + len(res.Members))
	}
	page.Changes, err = c.changesIn(ans, res.Members, q.since, listing{idKey: "email_address", stampKey: "last_changed", zone: time.UTC,
		layouts: []string{time.RFC3339}, decode: func(body []byte, id string) (Record, error) {
			return m.decode(c, OpChanges, answer{body: body}, q.entity, id)
		}})
	if err != nil {
		return ChangePage{}, err
	}
	return page, nil
}

// MailchimpTimeLayout is how Mailchimp writes times (last_changed) and reads them
// (since_last_changed): UTC with the offset spelled out.
const MailchimpTimeLayout = "2006-01-02T15:04:05+00:00"

// failure reads the problem document. Mailchimp has no error code field; its titles
// ("Resource Not Found", "Member Exists", "Invalid Resource") are fixed phrases and serve
// as the code, with spaces as underscores. detail quotes the member and is dropped.
func (mailchimp) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var p struct {
		Title string `json:"title"`
	}
	_ = json.Unmarshal(body, &p)
	return standardFailure(status, h, strings.ReplaceAll(strings.TrimSpace(p.Title), " ", "_"), now)
}
