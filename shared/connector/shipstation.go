package connector

// The shipping profile follows the ShipStation API v1 (https://ssapi.shipstation.com), as
// its OpenAPI document describes it (shared/connector/vendors/shipstation, from
// ballerina-platform/openapi-connectors; the conformance test validates every request
// this profile sends against it):
//
//   - Order model: https://docs.shipstation.com/apis/shipstation-v1/docs/models/order
//     (orderId is read-only; orderKey is the caller's unique key, set at creation)
//   - Create/update order: POST /orders/createorder; with an orderKey that exists it
//     updates that order, so it is an upsert keyed by orderKey. The body is the whole
//     order: fields left out are cleared, hence the read-merge-write below.
//   - Products: GET and PUT /products/{productId}, the PUT with the whole product. These
//     two are all v1 writes of what a flow maps: customers are read only (GET
//     /customers/{customerId}; there is no PUT), and so is everything else it names.
//   - Auth: HTTP Basic, API key as user name and API secret as password.
//   - Rate limits: https://www.shipstation.com/docs/api/requirements/#api-rate-limits
//     (40 requests a minute per API key pair; every answer carries X-Rate-Limit-Limit,
//     X-Rate-Limit-Remaining and X-Rate-Limit-Reset, the seconds until the window
//     resets; over the limit is 429). A 429 goes back to the caller at once with the
//     reset as RetryAfter: a write that finds no budget is deferred by whoever schedules
//     it, never waited out in a Lambda for up to a minute.
//   - Errors: ASP.NET Web API's {"Message"}, with "ModelState" (field -> messages) when a
//     400 is a body that failed validation. v1 sends no error codes.
//   - Changed since: list orders, https://docs.shipstation.com/apis/shipstation-v1/docs/orders/list-orders
//     (GET /orders?modifyDateStart=…&sortBy=ModifyDate&sortDir=ASC&pageSize=N&page=P,
//     answering {"orders","total","page","pages"}; pageSize at most 500). Dates are
//     Pacific time without a zone, to the second in the filter, which keeps orders
//     modified after it. Only orders have it.
//
// A record's entity is the resource collection ("orders") and its id ShipStation's
// numeric id (orderId).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "embed"
)

type shipstation struct{}

// ShipStationTimeLayout is how ShipStation writes and reads dates: Pacific time (see
// ShipStationZone) without a zone suffix, with seven fraction digits.
const ShipStationTimeLayout = "2006-01-02T15:04:05.0000000"

// pacificZone is America/Los_Angeles from Go's zoneinfo.zip (IANA tz data, public
// domain). Lambda's runtime has no zone database, and embedding Go's whole one
// (time/tzdata) added 450 KB to every function for this one zone.
//
//go:embed zoneinfo/America_Los_Angeles
var pacificZone []byte

// ShipStationZone is the zone ShipStation keeps its dates in, loaded on first use, so a
// function that never reads ShipStation's changes does not pay for it at start.
var ShipStationZone = sync.OnceValue(func() *time.Location {
	loc, err := time.LoadLocationFromTZData("America/Los_Angeles", pacificZone)
	if err != nil {
		panic("connector: the embedded America/Los_Angeles zone does not load: " + err.Error())
	}
	return loc
})

const (
	shipstationOrders   = "orders"
	shipstationProducts = "products"
)

// shipstationWritable are the resources v1 writes: orders through createorder, products
// with PUT /products/{productId}.
var shipstationWritable = map[string]bool{shipstationOrders: true, shipstationProducts: true}

func (shipstation) auth() authScheme { return authBasic }

func (shipstation) check(cfg Config, _ *url.URL) string {
	if cfg.Token != "" && cfg.TokenURL == "" && !strings.Contains(cfg.Token, ":") {
		return `token must be "apiKey:apiSecret"`
	}
	return ""
}

func (shipstation) resourceURL(c *Client, resource, id string) string {
	return c.base + "/" + url.PathEscape(resource) + "/" + url.PathEscape(id)
}

func (s shipstation) get(ctx context.Context, c *Client, op, resource, id string) (Record, error) {
	ans, err := c.do(ctx, op, http.MethodGet, s.resourceURL(c, resource, id), nil, nil)
	if err != nil {
		return Record{}, err
	}
	return s.decode(c, op, ans, resource, id)
}

// decode keeps the resource's fields; modifyDate is its version, and an order's read-only
// orderId is its id, not a field (createorder must not be sent one).
func (shipstation) decode(c *Client, op string, ans answer, resource, id string) (Record, error) {
	envelope := []string{"createDate"}
	if resource == shipstationOrders {
		envelope = append(envelope, "orderId")
	}
	return c.recordOf(op, ans, resource, id, "modifyDate", envelope...)
}

// write reads the whole resource, and unless it already holds the fields, sends it back
// whole with the fields merged in: orders through createorder (the read order's orderKey
// makes it an update), products with PUT.
func (s shipstation) write(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != "" {
		return s.upsert(ctx, c, req)
	}
	if !shipstationWritable[req.Entity] {
		return WriteResult{}, &Error{System: c.sys, Op: OpWrite, Err: ErrUnsupported,
			Cause: errors.New("ShipStation v1 writes orders and products only")}
	}
	cur, _, done, err := c.readForWrite(ctx, s, req, false)
	if err != nil || done {
		return WriteResult{Record: cur, Replayed: done}, err
	}
	want, _ := normalise(req.Fields)
	body, err := json.Marshal(merge(cur.Fields, want))
	if err != nil {
		return WriteResult{}, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	method, target := http.MethodPut, s.resourceURL(c, req.Entity, req.RecordID)
	if req.Entity == shipstationOrders {
		method, target = http.MethodPost, c.base+"/orders/createorder"
	}
	ans, err := c.do(ctx, OpWrite, method, target, body, writeHeaders(req))
	if err != nil {
		return WriteResult{}, err
	}
	var rec Record
	if req.Entity == shipstationOrders {
		// createorder answers with the order as stored.
		rec, err = s.decode(c, OpWrite, ans, req.Entity, req.RecordID)
	} else {
		// PUT answers {"success","message"}; the product is read back.
		rec, err = c.readBack(ctx, s, req.Entity, req.RecordID)
	}
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Record: rec}, nil
}

// writeCalls is what a write sends against the account's 40 a minute: a product's read,
// PUT and read back; an order's read (or its lookup by orderKey) and createorder.
func (shipstation) writeCalls(req writeOp) int {
	if req.Entity == shipstationProducts && !req.Create {
		return 3
	}
	return 2
}

// shipstationMaxPage is list orders' largest page.
const shipstationMaxPage = 500

// changes reads one page of orders by modifyDate, oldest first. The cursor is the next
// page number.
func (s shipstation) changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error) {
	if q.entity != shipstationOrders {
		return ChangePage{}, &Error{System: c.sys, Op: OpChanges, Err: ErrUnsupported, Cause: errors.New("only orders can be read by modification date")}
	}
	pageNo, ok := parseOffset(q.cursor)
	if !ok || q.cursor != "" && pageNo < 2 {
		return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
	}
	opts := url.Values{}
	opts.Set("modifyDateStart", shipstationStart(q.since).Format("2006-01-02 15:04:05"))
	opts.Set("sortBy", "ModifyDate")
	opts.Set("sortDir", "ASC")
	opts.Set("pageSize", strconv.Itoa(pageSize(q.limit, 100, shipstationMaxPage)))
	opts.Set("page", strconv.Itoa(max(pageNo, 1)))
	var res struct {
		Orders []json.RawMessage `json:"orders"`
		Page   int               `json:"page"`
		Pages  int               `json:"pages"`
	}
	ans, err := c.getJSON(ctx, OpChanges, c.base+"/orders?"+opts.Encode(), nil, &res)
	if err != nil {
		return ChangePage{}, err
	}
	page := ChangePage{}
	if res.Page < res.Pages && len(res.Orders) > 0 {
		page.NextCursor = strconv.Itoa(res.Page + 1)
	}
	page.Changes, err = c.changesIn(ans, res.Orders, q.since, listing{idKey: "orderId", stampKey: "modifyDate", zone: ShipStationZone(),
		layouts: []string{ShipStationTimeLayout, "2006-01-02T15:04:05"}, decode: func(body []byte, id string) (Record, error) {
			return s.decode(c, OpChanges, answer{body: body}, q.entity, id)
		}})
	if err != nil {
		return ChangePage{}, err
	}
	return page, nil
}

// shipstationStart is the modifyDateStart that finds every order changed at or after
// since: a second earlier, because ShipStation returns orders modified after it; and an
// hour earlier still around a change of Pacific time, whose repeated hour ShipStation
// may read either way. What is before since is dropped from the answer.
func shipstationStart(since time.Time) time.Time {
	start := since.Add(-time.Second).In(ShipStationZone())
	_, now := start.Zone()
	_, hourBefore := start.Add(-time.Hour).Zone()
	_, hourAfter := start.Add(time.Hour).Zone()
	if now != hourBefore || now != hourAfter {
		start = start.Add(-time.Hour)
	}
	return start
}

// merge lays want over have, merging nested objects, so a partial shipTo keeps the rest
// of the address.
func merge(have, want map[string]any) map[string]any {
	out := make(map[string]any, len(have)+len(want))
	for k, v := range have {
		out[k] = v
	}
	for k, w := range want {
		hm, ok1 := out[k].(map[string]any)
		wm, ok2 := w.(map[string]any)
		if ok1 && ok2 {
			out[k] = merge(hm, wm)
			continue
		}
		out[k] = w
	}
	return out
}

// failure reads ShipStation's error body and its rate-limit headers. v1's bodies carry a
// Message and, for a body that failed validation, a ModelState naming the fields; there
// is no code, so none is passed on, and how many fields were refused is the cause. On 429
// the wait is X-Rate-Limit-Reset, in seconds, handed to the caller without waiting.
func (shipstation) failure(status int, h http.Header, body []byte, now time.Time) failureInfo {
	var e struct {
		ModelState map[string]json.RawMessage `json:"ModelState"`
	}
	_ = json.Unmarshal(body, &e)
	f := standardFailure(status, h, "", now)
	if len(e.ModelState) > 0 {
		f.cause = fmt.Errorf("%d fields failed validation", len(e.ModelState))
	}
	if status == http.StatusTooManyRequests {
		if secs, err := strconv.Atoi(strings.TrimSpace(h.Get("X-Rate-Limit-Reset"))); err == nil && secs > 0 {
			f.retryAfter = time.Duration(secs) * time.Second
		}
		f.deferred = f.retryAfter > 0
	}
	return f
}
