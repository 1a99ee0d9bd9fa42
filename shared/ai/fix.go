package ai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A path segment is a key of an object or an index of an array.
type segment struct {
	key   string
	index int
	isIdx bool
}

var errBadPath = errors.New("malformed field path")

// parsePath reads a FieldChange path: keys separated by '.', array indexes as [n], and
// keys that contain '.', '[' or ']' as ["key"].
func parsePath(p string) ([]segment, error) {
	var segs []segment
	i := 0
	expectKey := true
	for i < len(p) {
		switch {
		case p[i] == '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, errBadPath
			}
			inner := p[i+1 : i+end]
			if strings.HasPrefix(inner, `"`) {
				// A quoted key may contain ']': find the closing quote first.
				q := i + 1 + closingQuote(p[i+1:])
				if q <= i+1 || q+1 >= len(p) || p[q+1] != ']' {
					return nil, errBadPath
				}
				var k string
				if err := json.Unmarshal([]byte(p[i+1:q+1]), &k); err != nil {
					return nil, errBadPath
				}
				segs = append(segs, segment{key: k})
				i = q + 2
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, errBadPath
				}
				segs = append(segs, segment{index: n, isIdx: true})
				i += end + 1
			}
			expectKey = false
		case p[i] == '.':
			if expectKey {
				return nil, errBadPath
			}
			i++
			expectKey = true
			if i == len(p) {
				return nil, errBadPath
			}
		default:
			if !expectKey {
				return nil, errBadPath
			}
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' && p[j] != ']' {
				j++
			}
			if j == i || (j < len(p) && p[j] == ']') {
				return nil, errBadPath
			}
			segs = append(segs, segment{key: p[i:j]})
			i = j
			expectKey = false
		}
	}
	if len(segs) == 0 {
		return nil, errBadPath
	}
	return segs, nil
}

// closingQuote returns the index in s (which starts with '"') of the quote that ends the
// JSON string, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func formatPath(segs []segment) string {
	var b strings.Builder
	for i, s := range segs {
		switch {
		case s.isIdx:
			fmt.Fprintf(&b, "[%d]", s.index)
		case strings.ContainsAny(s.key, ".[]") || s.key == "":
			q, _ := json.Marshal(s.key)
			b.WriteByte('[')
			b.Write(q)
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// decodeObject decodes a JSON object keeping numbers exact; empty input is an empty
// object.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// resolve finds the value at segs, matching keys exactly or, failing that, ignoring case
// (models and error messages often change the case of a field name). It returns the path
// as the document spells it.
func resolve(doc any, segs []segment) (any, []segment, bool) {
	cur := doc
	out := make([]segment, 0, len(segs))
	for _, s := range segs {
		switch v := cur.(type) {
		case map[string]any:
			if s.isIdx {
				return nil, nil, false
			}
			if next, ok := v[s.key]; ok {
				cur = next
				out = append(out, s)
				continue
			}
			found := ""
			for k := range v {
				if strings.EqualFold(k, s.key) && (found == "" || k < found) {
					found = k
				}
			}
			if found == "" {
				return nil, nil, false
			}
			cur = v[found]
			out = append(out, segment{key: found})
		case []any:
			if !s.isIdx || s.index >= len(v) {
				return nil, nil, false
			}
			cur = v[s.index]
			out = append(out, s)
		default:
			return nil, nil, false
		}
	}
	return cur, out, true
}

// placeholderRE matches the typed placeholders a PromptScanner puts where it removed a
// finding: [EMAIL], [CARD_NUMBER_2].
var placeholderRE = regexp.MustCompile(`\[[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\]`)

func containsPlaceholder(v any) bool {
	switch v := v.(type) {
	case string:
		return placeholderRE.MatchString(v)
	case map[string]any:
		for k, e := range v {
			if placeholderRE.MatchString(k) || containsPlaceholder(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, containsPlaceholder)
	}
	return false
}

// jsonEqual compares two JSON-shaped values by their JSON meaning (1 == 1.0, json.Number
// == float64).
func jsonEqual(a, b any) bool {
	na, errA := normalizeJSON(a)
	nb, errB := normalizeJSON(b)
	return errA == nil && errB == nil && reflect.DeepEqual(na, nb)
}

func normalizeJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

// cloneValue deep-copies a JSON-shaped value.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = cloneValue(e)
		}
		return s
	}
	return v
}

func cloneFix(fix []FieldChange) []FieldChange {
	if fix == nil {
		return nil
	}
	out := make([]FieldChange, len(fix))
	for i, c := range fix {
		out[i] = FieldChange{Path: c.Path, Before: cloneValue(c.Before), After: cloneValue(c.After)}
	}
	return out
}

// maxFixChanges bounds a proposal: an operator reviews every change, and a model that
// rewrites the whole record is not proposing a fix.
const maxFixChanges = 25

// reconcileFix makes a provider's proposed changes concrete against the payload the
// provider saw: Before becomes the payload's actual value (models misquote it), paths take
// the payload's spelling, and changes that cannot be applied are dropped with a note for
// the rationale: malformed paths, no-ops, repeats, and values that contain an anonymization
// placeholder (writing "[EMAIL]" back to the ERP would destroy data; the operator has to
// supply the value).
func reconcileFix(payload json.RawMessage, fix []FieldChange) ([]FieldChange, []string) {
	doc, err := decodeObject(payload)
	if err != nil {
		doc = map[string]any{}
	}
	var kept []FieldChange
	var notes []string
	seen := map[string]bool{}
	for _, c := range fix {
		segs, err := parsePath(c.Path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("a change with the malformed path %q was dropped", c.Path))
			continue
		}
		if v, actual, ok := resolve(doc, segs); ok {
			c.Path = formatPath(actual)
			c.Before = cloneValue(v)
		} else {
			c.Path = formatPath(segs)
			c.Before = nil
		}
		switch {
		case seen[c.Path]:
			notes = append(notes, fmt.Sprintf("a second change to %s was dropped", c.Path))
			continue
		case containsPlaceholder(c.After):
			notes = append(notes, fmt.Sprintf("the change to %s was withheld because its value was anonymized before diagnosis; an operator must supply it", c.Path))
			continue
		case jsonEqual(c.Before, c.After):
			continue
		case len(kept) == maxFixChanges:
			notes = append(notes, fmt.Sprintf("changes beyond the first %d were dropped", maxFixChanges))
			return kept, notes
		}
		seen[c.Path] = true
		kept = append(kept, c)
	}
	return kept, notes
}
