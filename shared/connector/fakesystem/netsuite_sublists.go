package fakesystem

// NetSuite's sublists (a sales order's item lines, a customer's addressbook) as the REST
// record service serves them:
//
//   - a GET answers sublists and subrecords as links only, unless the query has
//     expandSubResources=true; then each is {"links": [...], "items": [line, ...]}, every
//     line with links of its own ("Format of Sublists and Subrecords",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1545141947.html);
//   - a PATCH adds the lines it sends to a sublist, unless the sublist is named in the
//     replace query parameter (PATCH /record/v1/purchaseOrder/:id?replace=item), which
//     replaces all its lines with those sent ("Working with Sublists",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/chapter_1545142407.html).
//     The fake adds every line sent without replace; keyed sublists, where a line with a
//     known key is updated in place, are not modelled.

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// sublistLines returns the lines of v when v is a sublist ({"items": [...]}).
func sublistLines(v any) ([]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	items, ok := m["items"].([]any)
	return items, ok
}

// renderRecord is a record's GET body; href is the record's own address.
func (n netsuiteFake) renderRecord(rec *record, href string, expand bool) map[string]any {
	out := cloneMap(rec.fields)
	for name, v := range rec.fields {
		lines, ok := sublistLines(v)
		if !ok {
			continue
		}
		self := []map[string]string{{"rel": "self", "href": href + "/" + name}}
		if !expand {
			out[name] = map[string]any{"links": self}
			continue
		}
		shown := make([]any, len(lines))
		for i, line := range lines {
			l, _ := line.(map[string]any)
			l = cloneMap(l)
			l["links"] = []map[string]string{{"rel": "self", "href": href + "/" + name + "/" + strconv.Itoa(i+1)}}
			shown[i] = l
		}
		out[name] = map[string]any{"links": self, "items": shown}
	}
	out["links"] = []map[string]string{{"rel": "self", "href": href}}
	out["id"] = rec.id
	out["lastModifiedDate"] = n.version(rec)
	return out
}

// expandSubResources says whether a GET asked for sublists inline.
func expandSubResources(r *http.Request) bool {
	return r.URL.Query().Get("expandSubResources") == "true"
}

// patchSublists returns the fields a PATCH stores: each sublist sent replaces the record's
// lines when the replace parameter names it, and is added after them otherwise.
func patchSublists(r *http.Request, rec *record, fields map[string]any) map[string]any {
	replace := strings.Split(r.URL.Query().Get("replace"), ",")
	out := cloneMap(fields)
	for name, v := range fields {
		sent, ok := sublistLines(v)
		if !ok || slices.Contains(replace, name) {
			continue
		}
		have, _ := sublistLines(rec.fields[name])
		out[name] = map[string]any{"items": append(slices.Clone(have), sent...)}
	}
	return out
}
