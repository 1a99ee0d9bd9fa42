package ai

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// node is one value of the payload with its path.
type node struct {
	segs    []segment
	path    string
	pathKey string // the path normalised: lower-case letters and digits only
	key     string // the last key (the parent's key for array elements)
	keyNorm string
	value   any
	// parent is the object holding the value, for neighbours such as a country.
	parent    map[string]any
	container bool
}

// flatten lists every value of doc, depth first with keys in order, containers included.
func flatten(doc map[string]any) []node {
	var out []node
	var walk func(v any, segs []segment, key string, parent map[string]any)
	walk = func(v any, segs []segment, key string, parent map[string]any) {
		n := node{segs: segs, path: formatPath(segs), key: key, keyNorm: normKey(key), value: v, parent: parent}
		n.pathKey = normKey(n.path)
		switch v := v.(type) {
		case map[string]any:
			n.container = true
			if len(segs) > 0 {
				out = append(out, n)
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(v[k], appendSeg(segs, segment{key: k}), k, v)
			}
		case []any:
			n.container = true
			out = append(out, n)
			for i, e := range v {
				walk(e, appendSeg(segs, segment{index: i, isIdx: true}), key, parent)
			}
		default:
			out = append(out, n)
		}
	}
	walk(doc, nil, "", nil)
	return out
}

func appendSeg(segs []segment, s segment) []segment {
	out := make([]segment, len(segs), len(segs)+1)
	copy(out, segs)
	return append(out, s)
}

// normKey reduces a key, a path or a label to lower-case letters and digits, so that
// "Shipping City", "ShippingCity" and "shipping_city" meet.
func normKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// scalarString is the text of a scalar value ("" and false for containers and null).
func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// message is what the rules extract from an error's code and text.
type message struct {
	text  string
	lower string
	// fields are names the message gives as the field at fault (strong), mentions are
	// identifier-like words anywhere in it (weak).
	fields, mentions []string
	// labels are runs of two or three words, normalised, that may spell a field's key
	// ("postal code" for postalCode).
	labels []string
	// values are strings the message quotes or presents as the offending value.
	values []string
	// named is a value the message offers as the right one ("did you mean 'X'"), with a
	// hint about which field it belongs to.
	named     string
	namedHint string
	// allowed are the values the message lists as allowed.
	allowed []string
	// maxLen is a maximum length the message names, 0 if none.
	maxLen int
}

var (
	fieldCueREs = []fastRE{
		mustFast(`(?i)\bfields?\s*(?:name)?\s*[:=]?\s*['"“\x60]?([A-Za-z_][\w.\[\]]*)`),
		mustFast(`^\s*([A-Za-z_][\w .\[\]/]{0,60}?)\s*:\s`),
		mustFast(`\(([A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)+)\)`),
		mustFast(`"(?:name|api_name|field|fieldName|property)"\s*:\s*"([^"]+)"`),
		mustFast(`(?i)\b(?:property|parameter|attribute|column)\s+['"“]?([A-Za-z_][\w.\[\]]*)`),
		mustFast(`([A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)*)\s+(?:value\s+)?['"“]([^'"”]+)['"”]\s+(?:is|was)\b`),
		mustFast(`\bfor ([a-z][a-z0-9]*_[\w.]+|[a-z]+[A-Z][\w.]*)`),
		mustFast(`([A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)*)\s+(?:is|are) (?:required|missing|mandatory|invalid)`),
	}
	identRE   = lazyRegexp(`[A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)*`)
	quotedRE  = lazyRegexp(`'([^']{1,200})'|"([^"]{1,200})"|“([^”]{1,200})”|\x60([^\x60]{1,200})\x60`)
	valueCues = []fastRE{
		mustFast(`(?i)invalid field value\s+(.+?)\s+for the following field`),
		mustFast(`(?i)invalid email address:\s*(.+?)\s*$`),
		mustFast(`(?i)value not of required type:\s*(.+?)\s*$`),
		mustFast(`(?i)data value too large:\s*(.+?)\s*\(max`),
		mustFast(`(?i)email address\s+(\S+)\s+is invalid`),
	}
	// jacksonChainRE reads the path Jackson prints: Order["lines"]->ArrayList[0]->Line["amount"].
	jacksonChainRE = mustFast(`reference chain:\s*(.+?)\)?$`)
	jacksonSegRE   = lazyRegexp(`\["([^"]+)"\]|\[(\d+)\]`)

	namedCues = []struct {
		re   fastRE
		hint string
	}{
		{mustFast(`(?i)did you mean\s*:?\s*['"“]([^'"”]+)['"”]`), ""},
		{mustFast(`(?i)did you mean\s*:?\s*([\w.@/-]*\w)`), ""},
		{mustFast(`(?i)(?:replacement(?: item| record| value| code)?|replaced by|superseded by|merged into|successor)\s*(?:is\s*)?:?\s*['"“]([^'"”]+)['"”]`), ""},
		{mustFast(`(?i)(?:replacement(?: item| record| value| code)?|replaced by|superseded by|merged into|successor)\s*(?:is\s*)?:?\s*([\w.@/-]*\w)`), ""},
		{mustFast(`(?i)(?:earliest|next|first) open (?:accounting |posting )?period\s*(?:is\s*)?:?\s*['"“]?([A-Za-z]{3,9}\.? \d{4}|\d{4}-\d{2}|[A-Za-z]{3}-\d{2,4})`), "period"},
		{mustFast(`(?i)base currency\s*(?:is\s*)?:?\s*['"“]?([A-Za-z]{3})\b`), "currency"},
		{mustFast(`(?i)\b(?:use|try)\s+['"“]([^'"”]+)['"”]\s+instead`), ""},
		{mustFast(`(?i)\b(?:expected|should be|must be)\s+['"“]([^'"”]+)['"”]`), ""},
		{mustFast(`(?i)valid value is\s*:?\s*['"“]?([\w.-]+)`), ""},
	}
	allowedRE = mustFast(`(?i)(?:one of the allowed (?:values|options)|allowed (?:values|options)|valid (?:values|options|services|codes)|must be one of|expected one of|permitted values|possible values|accepted values|supported values)\s*(?:are|is|include)?\s*:?\s*(.+)$`)
	maxLenREs = []fastRE{
		mustFast(`(?i)max(?:imum)?[ _-]?length(?:\s*(?:of|is|=|:))?\s*(\d+)`),
		mustFast(`(?i)(?:at most|no more than|up to|maximum of|limit of|longer than|exceeds)\s+(\d+)\s+(?:characters|chars)`),
		mustFast(`(?i)varying\((\d+)\)|\(max(?:imum)?\s*(\d+)\)|max(?:imum)? (\d+) characters`),
	}
)

// stopFields are words the field patterns catch that never name a field.
var stopFields = map[string]bool{
	"": true, "field": true, "fields": true, "value": true, "values": true, "the": true,
	"this": true, "it": true, "following": true, "record": true, "error": true, "a": true,
	"are": true, "is": true, "missing": true, "required": true, "invalid": true,
}

func readMessage(text string) message {
	m := message{text: text, lower: strings.ToLower(text)}
	addField := func(f string) {
		f = strings.TrimSpace(strings.Trim(f, `'"“”.,;:`+"`"))
		if !stopFields[strings.ToLower(f)] {
			m.fields = append(m.fields, f)
		}
	}
	for _, re := range fieldCueREs {
		for _, sm := range re.FindAllStringSubmatch(text, m.lower) {
			addField(sm[1])
			if len(sm) > 2 && sm[2] != "" {
				m.values = append(m.values, sm[2])
			}
		}
	}
	if sm := jacksonChainRE.FindStringSubmatch(text, m.lower); sm != nil {
		var segs []segment
		for _, p := range jacksonSegRE().FindAllStringSubmatch(sm[1], -1) {
			if p[1] != "" {
				segs = append(segs, segment{key: p[1]})
			} else {
				n, _ := strconv.Atoi(p[2])
				segs = append(segs, segment{index: n, isIdx: true})
			}
		}
		if len(segs) > 0 && !segs[0].isIdx {
			m.fields = append(m.fields, formatPath(segs))
		}
	}
	m.mentions = identRE().FindAllString(text, -1)
	m.labels = labelGrams(text)
	for _, sm := range quotedRE().FindAllStringSubmatch(text, -1) {
		for _, g := range sm[1:] {
			if g != "" {
				m.values = append(m.values, g)
			}
		}
	}
	for _, re := range valueCues {
		if sm := re.FindStringSubmatch(text, m.lower); sm != nil {
			m.values = append(m.values, strings.Trim(sm[1], `'"`))
		}
	}
	for _, c := range namedCues {
		if sm := c.re.FindStringSubmatch(text, m.lower); sm != nil {
			m.named, m.namedHint = strings.TrimSpace(strings.TrimRight(sm[1], ".")), c.hint
			break
		}
	}
	if sm := allowedRE.FindStringSubmatch(text, m.lower); sm != nil {
		m.allowed = splitList(sm[1])
	}
	for _, re := range maxLenREs {
		if sm := re.FindStringSubmatch(text, m.lower); sm != nil {
			for _, g := range sm[1:] {
				if n, err := strconv.Atoi(g); err == nil && n > 0 {
					m.maxLen = n
					break
				}
			}
			if m.maxLen > 0 {
				break
			}
		}
	}
	return m
}

var (
	wordRE    = lazyRegexp(`[A-Za-z][A-Za-z0-9]*`)
	listSepRE = lazyRegexp(`\s*(?:,|;|\||\bor\b)\s*`)
)

func labelGrams(text string) []string {
	words := wordRE().FindAllString(text, -1)
	var out []string
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			out = append(out, normKey(strings.Join(words[i:i+n], "")))
		}
	}
	return out
}

// splitList reads "[a, b, c]", "A, B or C", "'x', 'y'" into its items.
func splitList(s string) []string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "[("); i == 0 {
		if j := strings.IndexAny(s, "])"); j > 0 {
			s = s[1:j]
		}
	} else if j := strings.Index(s, ". "); j > 0 {
		s = s[:j]
	}
	s = strings.TrimRight(s, ".")
	var out []string
	for _, p := range listSepRE().Split(s, -1) {
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), `'"“”`+"`"))
		if p != "" && len(strings.Fields(p)) <= 4 {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// target is a payload value the message is about, with how strongly.
type target struct {
	node
	score int
}

// wordBoundaryIn reports whether needle occurs in hay with no letter or digit on
// either side.
func wordBoundaryIn(hay, needle string) bool {
	for i := 0; ; {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(needle)
		if (start == 0 || !isAlnum(hay[start-1])) && (end == len(hay) || !isAlnum(hay[end])) {
			return true
		}
		i = start + 1
	}
}

func isAlnum(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// nameMatches reports whether a field name from a message designates n: the same path,
// a dotted suffix of it, or the same last key (all compared normalised).
func nameMatches(name string, n node) bool {
	nk := normKey(name)
	if nk == "" {
		return false
	}
	if nk == n.pathKey || (nk == n.keyNorm && !strings.ContainsAny(name, ".[")) {
		return true
	}
	if segs, err := parsePath(name); err == nil && len(segs) > 1 && len(segs) <= len(n.segs) {
		tail := n.segs[len(n.segs)-len(segs):]
		for i := range segs {
			if segs[i].isIdx != tail[i].isIdx || (segs[i].isIdx && segs[i].index != tail[i].index) ||
				(!segs[i].isIdx && normKey(segs[i].key) != normKey(tail[i].key)) {
				return false
			}
		}
		return true
	}
	return false
}

// locate ranks the payload's scalar values by how clearly the message points at them:
// named as the field at fault (3), quoted as the offending value (3), the value appearing
// in the text (2), a container of it named (1), its key mentioned anywhere (1).
func locate(m message, nodes []node) []target {
	strong := map[string]bool{}
	for _, n := range nodes {
		if !n.container {
			continue
		}
		for _, f := range m.fields {
			if nameMatches(f, n) {
				strong[n.path] = true
			}
		}
	}
	var out []target
	for _, n := range nodes {
		if n.container {
			continue
		}
		s, ok := scalarString(n.value)
		if !ok {
			s = ""
		}
		score := 0
		for _, f := range m.fields {
			if nameMatches(f, n) {
				score += 3
				break
			}
		}
		trimmed := strings.TrimSpace(s)
		quoted := false
		if trimmed != "" {
			for _, v := range m.values {
				if strings.TrimSpace(v) == trimmed {
					score += 3
					quoted = true
					break
				}
			}
			if !quoted && mentionable(trimmed) && wordBoundaryIn(m.text, trimmed) {
				score += 2
			}
		}
		for p := range strong {
			if strings.HasPrefix(n.path, p+".") || strings.HasPrefix(n.path, p+"[") {
				score++
				break
			}
		}
		for _, w := range m.mentions {
			if normKey(w) == n.keyNorm && n.keyNorm != "" {
				score++
				break
			}
		}
		// A key spelled out in words ("postal code") is a stronger hint than a word.
		for _, l := range m.labels {
			if l == n.keyNorm {
				score += 2
				break
			}
		}
		if score > 0 {
			out = append(out, target{node: n, score: score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// mentionable is whether a value is distinctive enough that finding it in the text
// means the text is about it: not a tiny number or a two-letter word that occurs anywhere.
func mentionable(s string) bool {
	if len(s) >= 4 {
		return true
	}
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z') && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return len(s) >= 3
}
