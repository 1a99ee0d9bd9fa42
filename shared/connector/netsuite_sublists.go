package connector

// NetSuite's sublists (a sales order's item lines) in the REST record service:
//
//   - a GET answers sublists and subrecords as links only, unless the query has
//     expandSubResources=true ("Format of Sublists and Subrecords",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1545141947.html),
//     so the record is read with it: a write's "already applied?" compare must see lines;
//   - a PATCH adds the lines it sends to those there unless the sublist is named in the
//     replace query parameter, which replaces all its lines ("Working with Sublists",
//     https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/chapter_1545142407.html,
//     PATCH /record/v1/purchaseOrder/:id?replace=item). A write's sublist is therefore the
//     record's whole list of lines and is sent with replace, so a retried write leaves
//     each line once instead of adding them again.

import (
	"net/url"
	"slices"
	"strings"
)

// netsuiteExpand is the query of a record read.
const netsuiteExpand = "?expandSubResources=true"

// netsuiteReplace is the query of a PATCH of fields: replace= the sublists among them, or
// "" when there are none.
func netsuiteReplace(fields map[string]any) string {
	// normalise gives lines built in Go ([]map[string]any) the JSON shape ([]any).
	norm, _ := normalise(fields)
	var names []string
	for name, v := range norm {
		if m, ok := v.(map[string]any); ok {
			if _, lines := m["items"].([]any); lines {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return "?" + url.Values{"replace": {strings.Join(names, ",")}}.Encode()
}
