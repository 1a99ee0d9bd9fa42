package fakesystem

// Creating and finding records, as each vendor does it (see package connector's
// create.go): NetSuite's POST and PUT eid: upsert and a SuiteQL find, Salesforce's POST
// create, upsert answers and a SOQL find, Business Central's POST and $filter find,
// Mailchimp's add member, ShipStation's list orders by orderNumber.

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
)

// matching lists the records of entity whose field (compared case-insensitively by name,
// as SuiteQL's columns are) holds value as text, by id.
func (s *Server) matching(entity, field, value string) []*record {
	var out []*record
	for k, rec := range s.records {
		if k.entity != entity {
			continue
		}
		for name, v := range rec.fields {
			if strings.EqualFold(name, field) && v != nil && fmt.Sprint(v) == value {
				out = append(out, rec)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b *record) int { return strings.Compare(a.id, b.id) })
	return out
}

// create stores a new record with fields under id and logs the write.
func (s *Server) create(r *http.Request, entity, id string, fields map[string]any) *record {
	rec := s.newRecord(id)
	s.records[recordKey{entity, s.dialect.key(id)}] = rec
	s.apply(r, entity, rec, fields)
	return rec
}

// newID is the next numeric id.
func (s *Server) newID() string {
	s.nextID++
	return strconv.Itoa(s.nextID)
}

// --- NetSuite

var nsFind = regexp.MustCompile(`^SELECT id FROM (\w+) WHERE (\w+) = '((?:[^']|'')*)'( AND type = '\w+')? ORDER BY id$`)

// nsCreate answers POST /record/v1/{type}: 204, the new record's URL in Location.
func (n netsuiteFake) create(s *Server, r *http.Request, recordType string, body []byte) reply {
	fields, ok := decodeBody(body)
	if !ok || len(fields) == 0 {
		return n.errorReply(http.StatusBadRequest, "INVALID_CONTENT", "the request body is not a record")
	}
	rec := s.create(r, recordType, s.newID(), fields)
	return n.located(recordType, rec)
}

func (netsuiteFake) located(recordType string, rec *record) reply {
	rep := reply{status: http.StatusNoContent, header: http.Header{}}
	rep.header.Set("Location", nsRecordPrefix+url.PathEscape(recordType)+"/"+url.PathEscape(rec.id))
	return rep
}

// byExternalID answers GET and PUT {type}/eid:{externalId}; PUT creates the record when
// none has the external id (NetSuite's upsert).
func (n netsuiteFake) byExternalID(s *Server, r *http.Request, recordType, eid string, body []byte) reply {
	matches := s.matching(recordType, "externalId", eid)
	switch r.Method {
	case http.MethodGet:
		if len(matches) == 0 {
			return n.errorReply(http.StatusNotFound, "NONEXISTENT_ID", "Record "+recordType+" eid:"+eid+" was not found.")
		}
		return n.render(s.lookup(recordType, matches[0].id, true), recordType, expandSubResources(r))
	case http.MethodPut:
		fields, ok := decodeBody(body)
		if !ok || len(fields) == 0 {
			return n.errorReply(http.StatusBadRequest, "INVALID_CONTENT", "the request body is not a record")
		}
		if len(matches) > 0 {
			s.apply(r, recordType, matches[0], fields)
			return n.located(recordType, matches[0])
		}
		fields["externalId"] = eid
		return n.located(recordType, s.create(r, recordType, s.newID(), fields))
	default:
		return n.errorReply(http.StatusMethodNotAllowed, "INVALID_REQUEST", "method not allowed")
	}
}

func (n netsuiteFake) render(rec *record, recordType string, expand bool) reply {
	return jsonReply(http.StatusOK, n.renderRecord(rec, nsRecordPrefix+recordType+"/"+rec.id, expand))
}

// netsuiteFindRows answers connector.NetSuiteFindQuery, or ok false for another query.
func (s *Server) netsuiteFindRows(q string) ([]map[string]any, bool) {
	m := nsFind.FindStringSubmatch(q)
	if m == nil {
		return nil, false
	}
	recordType := ""
	for rt, typ := range connector.NetSuiteTransactionTypes {
		if m[1] == "transaction" && m[4] == " AND type = '"+typ+"'" {
			recordType = rt
		}
	}
	for k := range s.records {
		if recordType == "" && m[4] == "" && strings.ToLower(k.entity) == m[1] {
			recordType = k.entity
		}
	}
	rows := []map[string]any{}
	for _, rec := range s.matching(recordType, m[2], strings.ReplaceAll(m[3], "''", "'")) {
		rows = append(rows, map[string]any{"links": []any{}, "id": rec.id})
	}
	return rows, true
}

// --- Salesforce

var sfFind = regexp.MustCompile(`^SELECT Id FROM (\w+) WHERE (\w+) = '((?:[^'\\]|\\.)*)' ORDER BY Id LIMIT (\d+)$`)

var soqlUnescape = strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\n`, "\n", `\r`, "\r", `\t`, "\t")

// create answers POST sobjects/{SObject}/: 201 {"id","success","errors"}.
func (f salesforceFake) create(s *Server, r *http.Request, sobject string, body []byte) reply {
	fields, ok := decodeBody(body)
	if _, hasID := fields["Id"]; !ok || hasID {
		return f.errorReply(http.StatusBadRequest, "INVALID_FIELD", "the body must be a record without Id")
	}
	if rep, locked := f.lockRefusal(s, sobject, "", fields); locked {
		return rep
	}
	rec := s.create(r, sobject, "001FAKE"+s.newID(), sfStored(fields))
	return jsonReply(http.StatusCreated, map[string]any{"id": rec.id, "success": true, "errors": []any{}})
}

// find answers connector.SalesforceFindQuery; ok false for another query.
func (f salesforceFake) find(s *Server, q string) (reply, bool) {
	m := sfFind.FindStringSubmatch(q)
	if m == nil {
		return reply{}, false
	}
	limit, _ := strconv.Atoi(m[4])
	records := []any{}
	for _, rec := range s.matching(m[1], m[2], soqlUnescape.Replace(m[3])) {
		if len(records) < limit {
			records = append(records, map[string]any{"attributes": map[string]string{"type": m[1]}, "Id": rec.id})
		}
	}
	return jsonReply(http.StatusOK, map[string]any{"totalSize": len(records), "done": true, "records": records}), true
}

// --- Business Central

var bcFind = regexp.MustCompile(`^(\w+) eq '((?:[^']|'')*)'$`)

// create answers POST {entitySet}: 201 and the entity.
func (b bcFake) create(s *Server, r *http.Request, entitySet string, body []byte) reply {
	fields, ok := decodeBody(body)
	if !ok || len(fields) == 0 {
		return b.errorReply(http.StatusBadRequest, "BadRequest", "the request body is not an entity")
	}
	if n, ok := fields["number"]; ok && len(s.matching(entitySet, "number", fmt.Sprint(n))) > 0 {
		return b.errorReply(http.StatusConflict, "Internal_EntityWithSameKeyExists", "The record already exists.")
	}
	rec := s.create(r, entitySet, fmt.Sprintf("8a7f2c1e-0000-4000-8000-%012s", s.newID()), fields)
	rep := b.entity(rec, entitySet)
	rep.status = http.StatusCreated
	return rep
}

// find answers GET {entitySet}?$filter={field} eq '…'&$select=id&$top=N; ok false for
// another read of the set.
func (b bcFake) find(s *Server, r *http.Request, entitySet string) (reply, bool) {
	q := r.URL.Query()
	m := bcFind.FindStringSubmatch(q.Get("$filter"))
	if m == nil || q.Get("$select") != "id" {
		return reply{}, false
	}
	top, err := strconv.Atoi(q.Get("$top"))
	if err != nil || top < 1 {
		top = 20000
	}
	value := []any{}
	for _, rec := range s.matching(entitySet, m[1], strings.ReplaceAll(m[2], "''", "'")) {
		if len(value) < top {
			value = append(value, map[string]any{"@odata.etag": `W/"` + b.version(rec) + `"`, "id": rec.id})
		}
	}
	return jsonReply(http.StatusOK, map[string]any{"@odata.context": "/api/v2.0/$metadata#companies(" + FakeCompanyID + ")/" + entitySet, "value": value}), true
}

// --- Mailchimp

// create answers POST /3.0/lists/{list}/members: 400 Member Exists when the address is there.
func (m mailchimpFake) create(s *Server, r *http.Request, list string, body []byte) reply {
	fields, ok := decodeBody(body)
	email, _ := fields["email_address"].(string)
	status, _ := fields["status"].(string)
	if !ok || email == "" || status == "" {
		return m.errorReply(http.StatusBadRequest, "", "A new member needs email_address and status.")
	}
	if s.lookup(list, email, false) != nil {
		return m.errorReply(http.StatusBadRequest, "Member Exists", email+" is already a list member.")
	}
	return m.member(s.create(r, list, email, fields), list)
}

// --- ShipStation

// findOrders answers GET /orders?orderNumber=…: orders whose number starts with it, as
// ShipStation's filter matches.
func (f shipstationFake) findOrders(s *Server, number string) reply {
	orders := []any{}
	for k, rec := range s.records {
		if n, _ := rec.fields["orderNumber"].(string); k.entity == "orders" && strings.HasPrefix(n, number) {
			orders = append(orders, f.body(rec, "orders"))
		}
	}
	return jsonReply(http.StatusOK, map[string]any{"orders": orders, "total": len(orders), "page": 1, "pages": 1})
}
