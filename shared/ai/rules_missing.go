package ai

import (
	"fmt"
	"strings"
)

// missingFields lists the fields the message says are missing.
func (a *analysis) missingFields() []string {
	var out []string
	for _, re := range missingREs {
		sm := re.FindStringSubmatch(a.req.Message, a.msg.lower)
		if sm == nil {
			continue
		}
		for _, f := range strings.Split(sm[1], ",") {
			f = strings.TrimSpace(strings.Trim(strings.TrimSpace(f), `'"“”[]`))
			if f != "" && !stopFields[strings.ToLower(f)] {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// fixMissing derives a value for a missing field from elsewhere in the record: its
// billing/shipping counterpart, the value every other line has, or the same field in the
// context the host sent. Nothing else: a guessed value would be written to the ERP.
func (a *analysis) fixMissing() {
	for _, name := range a.missingFields() {
		if a.field == "" {
			a.field = name
		}
		if a.fixMissingOne(name) {
			return
		}
	}
}

func (a *analysis) fixMissingOne(name string) bool {
	segs, err := parsePath(name)
	isPath := err == nil && strings.ContainsAny(name, ".[")
	if isPath {
		if v, _, ok := resolve(a.doc, segs); ok && !isEmpty(v) {
			return false // present after all: the message is about something else
		}
	}
	nameKey := normKey(name)

	// The counterpart: shipcountry from billcountry, shipping_address.x from billing_address.x.
	for _, n := range a.nodes {
		if n.container || isEmpty(n.value) || containsPlaceholder(n.value) {
			continue
		}
		for _, cand := range counterpartPaths(n.segs) {
			path := formatPath(cand)
			if v, _, ok := resolve(a.doc, cand); ok && !isEmpty(v) {
				continue
			}
			match := false
			if isPath {
				match = normKey(path) == normKey(formatPath(segs))
			} else {
				last := cand[len(cand)-1]
				match = !last.isIdx && labelMatches(nameKey, normKey(last.key))
			}
			if match {
				a.field = path
				a.propose(path, nil, cloneValue(n.value), basisCopy,
					fmt.Sprintf("copied from its counterpart %s, which the record has", n.path))
				return true
			}
		}
	}
	// The same field on every other line.
	if isPath {
		if v, from, ok := a.siblingValue(segs); ok {
			path := formatPath(segs)
			a.field = path
			a.propose(path, nil, v, basisSibling, fmt.Sprintf("every other line (%s) has this value", from))
			return true
		}
	}
	// The same field in the context.
	lastKey := nameKey
	if isPath && !segs[len(segs)-1].isIdx {
		lastKey = normKey(segs[len(segs)-1].key)
	}
	var found []node
	for _, n := range a.ctxNodes {
		if !n.container && !isEmpty(n.value) && !containsPlaceholder(n.value) && n.keyNorm == lastKey {
			found = append(found, n)
		}
	}
	if len(found) > 0 && allEqual(found) {
		path := name
		if !isPath {
			path = formatPath([]segment{{key: found[0].key}})
		}
		a.field = path
		a.propose(path, nil, cloneValue(found[0].value), basisContext,
			fmt.Sprintf("the context the host sent gives %s", found[0].path))
		return true
	}
	return false
}

// counterpartPaths are the paths a value would have on the other side of a
// billing/shipping pair: each key segment that starts with one prefix, swapped for the
// other, keeping the key's case.
func counterpartPaths(segs []segment) [][]segment {
	var out [][]segment
	for i, s := range segs {
		if s.isIdx {
			continue
		}
		lower := strings.ToLower(s.key)
		for _, pair := range counterparts {
			for _, dir := range [][2]string{{pair[0], pair[1]}, {pair[1], pair[0]}} {
				if !strings.HasPrefix(lower, dir[0]) {
					continue
				}
				repl := dir[1]
				if s.key[0] >= 'A' && s.key[0] <= 'Z' {
					repl = strings.ToUpper(repl[:1]) + repl[1:]
				}
				c := make([]segment, len(segs))
				copy(c, segs)
				c[i] = segment{key: repl + s.key[len(dir[0]):]}
				out = append(out, c)
			}
		}
	}
	return out
}

// labelMatches reports whether a field key fits a label a message shows ("Ship To
// Country" for shipcountry): the key's letters appear in order in the label, which starts
// with the key's first letter and ends with its last three.
func labelMatches(label, key string) bool {
	if key == "" || label == "" {
		return false
	}
	if label == key {
		return true
	}
	if label[0] != key[0] || len(key) < 4 || len(key)*10 < len(label)*7 ||
		!strings.HasSuffix(label, key[len(key)-3:]) {
		return false
	}
	i := 0
	for j := 0; j < len(label) && i < len(key); j++ {
		if label[j] == key[i] {
			i++
		}
	}
	return i == len(key)
}

// siblingValue finds the value the other elements of an array agree on for a path with
// an index, such as items[1].location.
func (a *analysis) siblingValue(segs []segment) (any, string, bool) {
	idx := -1
	for i, s := range segs {
		if s.isIdx {
			idx = i
		}
	}
	if idx < 0 {
		return nil, "", false
	}
	arr, _, ok := resolve(a.doc, segs[:idx])
	list, isList := arr.([]any)
	if !ok || !isList || len(list) < 2 {
		return nil, "", false
	}
	var val any
	var from []string
	for i := range list {
		if i == segs[idx].index {
			continue
		}
		c := make([]segment, len(segs))
		copy(c, segs)
		c[idx] = segment{index: i, isIdx: true}
		v, _, ok := resolve(a.doc, c)
		if !ok || isEmpty(v) || containsPlaceholder(v) || (val != nil && !jsonEqual(val, v)) {
			return nil, "", false
		}
		val = v
		from = append(from, formatPath(c))
	}
	return cloneValue(val), strings.Join(from, ", "), val != nil
}

var existingIDREs = []fastRE{
	mustFast(`(?i)internal\s*id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)existing (?:record |object |contact |customer |company |account )?id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)(?:on|with) (?:the )?record (?:with )?id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)existing (?:record|object)\s*[:#]\s*['"]?([A-Za-z0-9_-]+)`),
}

// fixDuplicate links the record to the one that exists, when the message names its id:
// with the id set, the next sync updates that record instead of creating it again.
func (a *analysis) fixDuplicate() {
	var id string
	for _, re := range existingIDREs {
		if sm := re.FindStringSubmatch(a.req.Message, a.msg.lower); sm != nil && strings.ContainsAny(sm[1], "0123456789") {
			id = sm[1]
			break
		}
	}
	if id == "" {
		return
	}
	for _, n := range a.nodes {
		if s, ok := scalarString(n.value); ok && s == id {
			return // the id is the record's own value (its external id), not another record's
		}
	}
	path := ""
	for _, k := range []string{"internalId", "internalid", "id", "Id", "ID", "existingId"} {
		if _, ok := a.doc[k]; ok {
			path = k
			break
		}
	}
	if path == "" {
		switch c, _ := a.refuser(); c {
		case netsuiteCatalogue:
			path = "internalId"
		case salesforceCatalogue:
			path = "Id"
		default:
			path = "id"
		}
	}
	a.field = path
	a.propose(path, a.doc[path], id, basisLink,
		fmt.Sprintf("the message names the existing record %s; linking to it turns the create into an update", id))
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	}
	return false
}

func allEqual(ns []node) bool {
	for _, n := range ns[1:] {
		if !jsonEqual(n.value, ns[0].value) {
			return false
		}
	}
	return true
}
