package fakesystem

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// shipstationFake plays ShipStation API v1 as its OpenAPI document has it
// (shared/connector/vendors/shipstation): GET /{resource}/{id}, POST /orders/createorder
// (an upsert keyed by orderKey, replacing the whole order) and PUT /products/{productId}
// (replacing the whole product). Nothing else is written: customers have no PUT.
type shipstationFake struct{}

// shipstationDate is a time as ShipStation writes dates: Pacific time, without a zone.
func shipstationDate(t time.Time) string {
	return t.In(connector.ShipStationZone()).Format(connector.ShipStationTimeLayout)
}

func (shipstationFake) version(rec *record) string {
	return shipstationDate(rec.modified)
}
func (shipstationFake) authorized(h, cred string) bool { return basic(h, cred) }
func (shipstationFake) key(id string) string           { return id }

// errorReply is ASP.NET Web API's error body, which ShipStation v1 answers with: a
// Message, and no code (v1 has none; the code is dropped).
func (shipstationFake) errorReply(status int, _, message string) reply {
	return jsonReply(status, map[string]any{"Message": message})
}

// invalid is v1's 400 for a body that failed validation: "The request is invalid." and
// the refused fields in ModelState, each with its messages.
func (shipstationFake) invalid(field, why string) reply {
	return jsonReply(http.StatusBadRequest, map[string]any{"Message": "The request is invalid.",
		"ModelState": map[string][]string{field: {why}}})
}

// shipstationPut are the resources v1 replaces with PUT /{resource}/{id}, of those the fake
// holds.
var shipstationPut = map[string]bool{"products": true}

// readOnly are the fields ShipStation sets itself and ignores in a body.
var readOnly = []string{"orderId", "createDate", "modifyDate"}

func (f shipstationFake) route(s *Server, r *http.Request, body []byte) reply {
	path := r.URL.EscapedPath()
	if path == "/orders" && r.Method == http.MethodGet {
		if number := r.URL.Query().Get("orderNumber"); number != "" {
			return f.findOrders(s, number)
		}
		return f.changes(s, r)
	}
	if path == "/orders/createorder" {
		if r.Method != http.MethodPost {
			return f.errorReply(http.StatusMethodNotAllowed, "", "The requested resource does not support this method.")
		}
		return f.createOrder(s, r, body)
	}
	segs, ok := pathSegments(path, "/", 2)
	if !ok {
		return f.errorReply(http.StatusNotFound, "", "No HTTP resource was found that matches the request URI.")
	}
	rec := s.lookup(segs[0], segs[1], r.Method == http.MethodGet)
	if rec == nil {
		return f.errorReply(http.StatusNotFound, "", "The requested resource was not found.")
	}
	switch r.Method {
	case http.MethodGet:
		return f.render(rec, segs[0])
	case http.MethodPut:
		if !shipstationPut[segs[0]] {
			return f.errorReply(http.StatusMethodNotAllowed, "", "The requested resource does not support http method 'PUT'.")
		}
		fields, ok := decodeBody(body)
		if !ok {
			return f.invalid("apiProduct", "Unexpected character encountered while parsing value. Path '', line 0, position 0.")
		}
		f.replace(s, r, segs[0], rec, fields)
		return jsonReply(http.StatusOK, map[string]any{"success": true, "message": "The requested resource has been updated"})
	default:
		return f.errorReply(http.StatusMethodNotAllowed, "", "The requested resource does not support this method.")
	}
}

// createOrder updates the order with the body's orderKey, or creates one (with a new key
// when the body has none).
func (f shipstationFake) createOrder(s *Server, r *http.Request, body []byte) reply {
	fields, ok := decodeBody(body)
	if !ok {
		return f.invalid("apiOrder", "Unexpected character encountered while parsing value. Path '', line 0, position 0.")
	}
	key, _ := fields["orderKey"].(string)
	var rec *record
	for k, cand := range s.records {
		if k.entity == "orders" && key != "" && cand.fields["orderKey"] == key {
			rec = cand
		}
	}
	if rec == nil {
		s.nextID++
		rec = s.newRecord(strconv.Itoa(s.nextID))
		s.records[recordKey{"orders", rec.id}] = rec
		if key == "" {
			fields["orderKey"] = "fake-key-" + rec.id
		}
	}
	f.replace(s, r, "orders", rec, fields)
	return f.render(rec, "orders")
}

// replace puts fields in place of the resource's, logging the ones that changed.
func (shipstationFake) replace(s *Server, r *http.Request, resource string, rec *record, fields map[string]any) {
	for _, k := range readOnly {
		delete(fields, k)
	}
	changed := map[string]any{}
	for k, v := range fields {
		if !reflect.DeepEqual(rec.fields[k], v) {
			changed[k] = v
		}
	}
	rec.fields = fields
	if len(changed) == 0 {
		// Writes that changed nothing are not listed (AppliedWrite).
		return
	}
	s.apply(r, resource, rec, changed)
}

func (f shipstationFake) render(rec *record, resource string) reply {
	return jsonReply(http.StatusOK, f.body(rec, resource))
}

func (f shipstationFake) body(rec *record, resource string) map[string]any {
	out := cloneMap(rec.fields)
	if resource == "orders" {
		out["orderId"] = rec.id
		if isNumeric(rec.id) {
			out["orderId"] = json.Number(rec.id)
		}
	}
	out["createDate"] = shipstationDate(rec.created)
	out["modifyDate"] = f.version(rec)
	return out
}
