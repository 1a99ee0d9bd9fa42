package connector

// ShipStation has one order write, POST /orders/createorder
// (https://docs.shipstation.com/apis/shipstation-v1/docs/orders/create-update-order): with
// an orderKey that exists it replaces that order, otherwise it creates one (with a
// generated key when none is sent), and it answers the order with its orderId. The body
// is the whole order (orderNumber, orderDate and orderStatus are required), so an upsert
// by orderKey must carry the whole order: an existing order with the key is replaced by
// it. The answer does not say whether it created; an order whose createDate equals its
// modifyDate was made by this call. Orders are found with list orders' orderNumber
// filter, which matches by prefix, so the answer is matched exactly here.

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
)

// ShipStationOrderKey is the upsert key ShipStation takes for orders.
const ShipStationOrderKey = "orderKey"

func (s shipstation) create(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.Entity != shipstationOrders {
		return WriteResult{}, &Error{System: c.sys, Op: OpWrite, Err: ErrUnsupported, Cause: errors.New("only orders can be created")}
	}
	if _, keyed := req.Fields[ShipStationOrderKey]; keyed {
		return WriteResult{}, c.refuse(OpWrite, "a create sends no orderKey: upsert by orderKey instead")
	}
	body, _ := json.Marshal(req.Fields)
	ans, err := c.sendCreate(ctx, http.MethodPost, c.base+"/orders/createorder", body, req)
	if err != nil {
		return WriteResult{}, err
	}
	rec, _, err := s.saved(c, ans)
	return WriteResult{Record: rec, Created: err == nil}, err
}

// upsert sends the order with the key; createorder is idempotent by it.
func (s shipstation) upsert(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.Entity != shipstationOrders || req.UpsertKey != ShipStationOrderKey {
		return WriteResult{}, c.refuse(OpWrite, "ShipStation upserts orders by orderKey only")
	}
	fields := maps.Clone(req.Fields)
	fields[ShipStationOrderKey] = req.RecordID
	body, err := json.Marshal(fields)
	if err != nil {
		return WriteResult{}, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	ans, err := c.do(ctx, OpWrite, http.MethodPost, c.base+"/orders/createorder", body, writeHeaders(req))
	if err != nil {
		return WriteResult{}, err
	}
	rec, created, err := s.saved(c, ans)
	return WriteResult{Record: rec, Created: created}, err
}

// saved reads createorder's answer: the order, its orderId as the record id, and whether
// this call made it.
func (s shipstation) saved(c *Client, ans answer) (Record, bool, error) {
	obj, ok := decodeObject(ans.body)
	id := ""
	if ok {
		id = scalarText(obj["orderId"])
	}
	if id == "" {
		return Record{}, false, c.malformed(OpWrite, ans)
	}
	created := obj["createDate"] != nil && obj["createDate"] == obj["modifyDate"]
	rec, err := s.decode(c, OpWrite, ans, shipstationOrders, id)
	return rec, created, err
}

// find lists orders by orderNumber and keeps the exact matches.
func (shipstation) find(ctx context.Context, c *Client, resource, field, value string) ([]string, error) {
	if resource != shipstationOrders || field != "orderNumber" {
		return nil, &Error{System: c.sys, Op: OpFind, Err: ErrUnsupported, Code: "find_orders_by_orderNumber_only"}
	}
	var res struct {
		Orders []map[string]any `json:"orders"`
	}
	q := url.Values{"orderNumber": {value}, "pageSize": {"100"}}
	if _, err := c.getJSON(ctx, OpFind, c.base+"/orders?"+q.Encode(), nil, &res); err != nil {
		return nil, err
	}
	ids := []string{}
	for _, o := range res.Orders {
		if o["orderNumber"] == value {
			if id := fmtColumn(o["orderId"]); id != "" {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}
