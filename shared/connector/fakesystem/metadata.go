package fakesystem

import (
	"encoding/json"
	"encoding/xml"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
)

// The vendors' metadata and connection-check reads (connector/metadata.go), answered in
// each vendor's published shape from what the fake holds: an entity is one the fake has
// records of (or that DefineEntity declared), its fields the union of its records' fields
// and the declared ones, each typed from its JSON value in the vendor's type names.

// DefineEntity declares an entity and fields the metadata reads list even before a record
// of it exists, as a real system's schema does.
func (s *Server) DefineEntity(entity string, fields ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.schema == nil {
		s.schema = map[string]map[string]any{}
	}
	if s.schema[entity] == nil {
		s.schema[entity] = map[string]any{}
	}
	for _, f := range fields {
		s.schema[entity][f] = ""
	}
}

// shapes gives every known entity's fields with a sample value each; s.mu is held.
func (s *Server) shapes() map[string]map[string]any {
	out := map[string]map[string]any{}
	for e, fs := range s.schema {
		out[e] = maps.Clone(fs)
	}
	for k, rec := range s.records {
		if out[k.entity] == nil {
			out[k.entity] = map[string]any{}
		}
		for f, v := range rec.fields {
			if prev, ok := out[k.entity][f]; !ok || prev == "" {
				out[k.entity][f] = v
			}
		}
	}
	return out
}

// metadata answers the metadata and check reads; false when r is none of them. s.mu is held.
// Every GET passes here, so each vendor's function matches the path before it builds the
// shapes (a walk over every record): a record read must not cost the fake a describe.
func (s *Server) metadata(r *http.Request) (reply, bool) {
	if r.Method != http.MethodGet {
		return reply{}, false
	}
	path := r.URL.EscapedPath()
	switch s.system {
	case connector.SystemHostERP:
		return s.netsuiteCatalog(r, path)
	case connector.SystemERP2:
		switch path {
		case "/api/v2.0/companies(" + FakeCompanyID + ")":
			return jsonReply(http.StatusOK, map[string]any{"@odata.etag": `W/"1"`, "id": FakeCompanyID, "name": "CRONUS (fake)",
				"displayName": "CRONUS (fake)"}), true
		case "/api/v2.0/$metadata":
			return s.bcMetadata(), true
		}
	case connector.SystemCRM:
		return s.salesforceDescribe(path)
	case connector.SystemMarketing:
		return s.mailchimpMetadata(path)
	case connector.SystemShipping:
		if path == "/accounts/listtags" {
			return jsonReply(http.StatusOK, []map[string]any{{"tagId": 1, "name": "Rush", "color": "#FF0000"}}), true
		}
	}
	return reply{}, false
}

// netsuiteCatalog is the REST metadata catalogue: the record types, and a type's JSON
// schema when asked with Accept: application/schema+json.
func (s *Server) netsuiteCatalog(r *http.Request, path string) (reply, bool) {
	const catalog = nsRecordPrefix + "metadata-catalog"
	if path == catalog || path == catalog+"/" {
		shapes := s.shapes()
		items := []map[string]any{}
		for _, e := range slices.Sorted(maps.Keys(shapes)) {
			items = append(items, map[string]any{"name": e, "links": []map[string]string{
				{"rel": "canonical", "href": catalog + "/" + e, "mediaType": "application/json"},
				{"rel": "alternate", "href": catalog + "/" + e, "mediaType": "application/schema+json"}}})
		}
		return jsonReply(http.StatusOK, map[string]any{"items": items, "links": []map[string]string{{"rel": "self", "href": catalog}}}), true
	}
	segs, ok := pathSegments(path, catalog+"/", 1)
	if !ok {
		return reply{}, false
	}
	fields, ok := s.shapes()[segs[0]]
	if !ok {
		return netsuiteFake{}.errorReply(http.StatusNotFound, "INVALID_RCRD_TYPE", "Record type "+segs[0]+" does not exist."), true
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/schema+json") {
		return netsuiteFake{}.errorReply(http.StatusBadRequest, "INVALID_HEADER", "Accept must be application/schema+json or application/swagger+json."), true
	}
	props := map[string]any{"id": map[string]any{"title": "Internal ID", "type": "string", "readOnly": true}}
	for f, v := range fields {
		props[f] = map[string]any{"title": f, "type": jsonSchemaType(v), "nullable": true}
	}
	rep := jsonReply(http.StatusOK, map[string]any{"type": "object", "properties": props, "required": []string{}})
	rep.header.Set("Content-Type", "application/schema+json")
	return rep, true
}

func jsonSchemaType(v any) string {
	switch v.(type) {
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "string"
}

// bcMetadata is API v2.0's CSDL document: an entity type and set per entity.
func (s *Server) bcMetadata() reply {
	type prop struct {
		Name     string `xml:"Name,attr"`
		Type     string `xml:"Type,attr"`
		Nullable string `xml:"Nullable,attr,omitempty"`
	}
	type entityType struct {
		Name string `xml:"Name,attr"`
		Key  struct {
			Ref struct {
				Name string `xml:"Name,attr"`
			} `xml:"PropertyRef"`
		} `xml:"Key"`
		Props []prop `xml:"Property"`
	}
	type entitySet struct {
		Name       string `xml:"Name,attr"`
		EntityType string `xml:"EntityType,attr"`
	}
	var types []entityType
	var sets []entitySet
	shapes := s.shapes()
	for _, set := range slices.Sorted(maps.Keys(shapes)) {
		name := strings.TrimSuffix(set, "s")
		t := entityType{Name: name, Props: []prop{{Name: "id", Type: "Edm.Guid", Nullable: "false"}}}
		t.Key.Ref.Name = "id"
		for _, f := range slices.Sorted(maps.Keys(shapes[set])) {
			if f != "id" {
				t.Props = append(t.Props, prop{Name: f, Type: edmType(shapes[set][f])})
			}
		}
		t.Props = append(t.Props, prop{Name: "lastModifiedDateTime", Type: "Edm.DateTimeOffset"})
		types = append(types, t)
		sets = append(sets, entitySet{Name: set, EntityType: "Microsoft.NAV." + name})
	}
	doc := struct {
		XMLName xml.Name `xml:"edmx:Edmx"`
		Version string   `xml:"Version,attr"`
		NS      string   `xml:"xmlns:edmx,attr"`
		Schema  struct {
			Namespace string       `xml:"Namespace,attr"`
			NS        string       `xml:"xmlns,attr"`
			Types     []entityType `xml:"EntityType"`
			Container struct {
				Name string      `xml:"Name,attr"`
				Sets []entitySet `xml:"EntitySet"`
			} `xml:"EntityContainer"`
		} `xml:"edmx:DataServices>Schema"`
	}{Version: "4.0", NS: "http://docs.oasis-open.org/odata/ns/edmx"}
	doc.Schema.Namespace, doc.Schema.NS = "Microsoft.NAV", "http://docs.oasis-open.org/odata/ns/edm"
	doc.Schema.Types, doc.Schema.Container.Name, doc.Schema.Container.Sets = types, "default", sets
	body, _ := xml.Marshal(doc)
	return reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/xml"}}, body: append([]byte(xml.Header), body...)}
}

func edmType(v any) string {
	switch v.(type) {
	case json.Number:
		return "Edm.Decimal"
	case bool:
		return "Edm.Boolean"
	}
	return "Edm.String"
}

// salesforceDescribe is describeGlobal and an sObject's describe.
func (s *Server) salesforceDescribe(path string) (reply, bool) {
	const sobjects = "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects"
	if path == sobjects || path == sobjects+"/" {
		shapes := s.shapes()
		list := []map[string]any{}
		for _, e := range slices.Sorted(maps.Keys(shapes)) {
			list = append(list, map[string]any{"name": e, "label": e, "createable": true, "updateable": true, "queryable": true,
				"custom": strings.HasSuffix(e, "__c"), "urls": map[string]string{"sobject": sobjects + "/" + e}})
		}
		return jsonReply(http.StatusOK, map[string]any{"encoding": "UTF-8", "maxBatchSize": 200, "sobjects": list}), true
	}
	segs, ok := pathSegments(path, sobjects+"/", 2)
	if !ok || segs[1] != "describe" {
		return reply{}, false
	}
	fields, ok := s.shapes()[segs[0]]
	if !ok {
		return salesforceFake{}.errorReply(http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist"), true
	}
	out := []map[string]any{{"name": "Id", "label": "Record ID", "type": "id", "createable": false, "updateable": false,
		"nillable": false, "defaultedOnCreate": true, "externalId": false}}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		out = append(out, map[string]any{"name": f, "label": f, "type": sfType(fields[f]), "createable": true, "updateable": true,
			"nillable": true, "defaultedOnCreate": false, "externalId": strings.HasSuffix(f, "__c") && strings.Contains(f, "Ext")})
	}
	return jsonReply(http.StatusOK, map[string]any{"name": segs[0], "label": segs[0], "fields": out}), true
}

func sfType(v any) string {
	switch v.(type) {
	case json.Number:
		return "double"
	case bool:
		return "boolean"
	}
	return "string"
}

// mailchimpMetadata is ping, the audiences and an audience's merge fields (the keys of its
// members' merge_fields).
func (s *Server) mailchimpMetadata(path string) (reply, bool) {
	switch path {
	case "/3.0/ping":
		return jsonReply(http.StatusOK, map[string]string{"health_status": "Everything's Chimpy!"}), true
	case "/3.0/lists":
		lists := []map[string]any{}
		for _, id := range slices.Sorted(maps.Keys(s.shapes())) {
			lists = append(lists, map[string]any{"id": id, "name": "Audience " + id})
		}
		return jsonReply(http.StatusOK, map[string]any{"lists": lists, "total_items": len(lists)}), true
	}
	segs, ok := pathSegments(path, "/3.0/lists/", 2)
	if !ok || segs[1] != "merge-fields" {
		return reply{}, false
	}
	if _, ok := s.shapes()[segs[0]]; !ok {
		return mailchimpFake{}.errorReply(http.StatusNotFound, "", "The requested resource could not be found."), true
	}
	tags := map[string]bool{}
	for k, rec := range s.records {
		if m, ok := rec.fields["merge_fields"].(map[string]any); ok && k.entity == segs[0] {
			for tag := range m {
				tags[tag] = true
			}
		}
	}
	merge := []map[string]any{}
	for i, tag := range slices.Sorted(maps.Keys(tags)) {
		merge = append(merge, map[string]any{"merge_id": i + 1, "tag": tag, "name": tag, "type": "text", "required": false,
			"list_id": segs[0]})
	}
	return jsonReply(http.StatusOK, map[string]any{"merge_fields": merge, "list_id": segs[0], "total_items": len(merge)}), true
}
