package apicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Operation is one documented operation.
type Operation struct {
	Method string
	Path   string
	Op     *openapi3.Operation
	Params openapi3.Parameters
}

func (o Operation) String() string { return o.Method + " " + o.Path }

// Operations are the document's operations, in a stable order (path, then method).
func (d *Document) Operations() []Operation {
	var out []Operation
	for path, item := range d.T.Paths.Map() {
		for method, op := range item.Operations() {
			params := slices.Clone(item.Parameters)
			params = append(params, op.Parameters...)
			out = append(out, Operation{Method: method, Path: path, Op: op, Params: params})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// Generated is one request the generator built, and what it broke on purpose ("" when it
// meant the request to be valid).
type Generated struct {
	Request  *http.Request
	Body     []byte
	Mutation string
}

// Generate builds a request to op from seed: schema-valid values for every required
// parameter and body member (and some optional ones), or, when invalid, the same with one
// violation of the schema. The same seed gives the same request. Values are bounded: short
// strings, few items, shallow objects.
//
// fixed, when it answers ok, gives a path parameter's value instead (a row that exists),
// so valid requests reach past the lookup.
func Generate(op Operation, seed uint64, invalid bool, fixed func(op Operation, param string) (string, bool)) Generated {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), extra: !invalid}
	path := op.Path
	q := url.Values{}
	header := http.Header{}
	type slot struct {
		p     *openapi3.Parameter
		value string
	}
	var slots []slot
	for _, pr := range op.Params {
		p := pr.Value
		if p == nil || p.Schema == nil || (!p.Required && g.r.IntN(2) == 0) {
			continue
		}
		v := g.scalar(g.value(p.Schema.Value, 0))
		if f, ok := fixedParam(fixed, op, p); ok && g.r.IntN(4) != 0 {
			v = f
		}
		slots = append(slots, slot{p, v})
	}
	var body any
	hasBody, ctype := false, ""
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil {
		ctype, body, hasBody = g.body(rb.Value)
		if !rb.Value.Required && g.r.IntN(4) == 0 {
			hasBody = false
		}
	}
	mutation := ""
	if invalid {
		mutation = g.mutate(op, &body, &hasBody, ctype, func(name, in string) (*openapi3.Parameter, *string) {
			for i := range slots {
				if slots[i].p.Name == name && slots[i].p.In == in {
					return slots[i].p, &slots[i].value
				}
			}
			return nil, nil
		}, func() []*openapi3.Parameter {
			var ps []*openapi3.Parameter
			for _, s := range slots {
				ps = append(ps, s.p)
			}
			return ps
		}())
	}
	for _, s := range slots {
		switch s.p.In {
		case openapi3.ParameterInPath:
			v := s.value
			if v == "" {
				v = "x"
			}
			path = strings.ReplaceAll(path, "{"+s.p.Name+"}", url.PathEscape(v))
		case openapi3.ParameterInQuery:
			q.Set(s.p.Name, s.value)
		case openapi3.ParameterInHeader:
			header.Set(s.p.Name, s.value)
		}
	}
	var raw []byte
	if hasBody {
		if b, ok := body.(rawBody); ok {
			raw = b
		} else if ctype == "application/json" || strings.HasSuffix(ctype, "+json") {
			raw, _ = json.Marshal(body)
		} else {
			raw = []byte(fmt.Sprint(body))
		}
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	r := httptest.NewRequest(op.Method, target, bytes.NewReader(raw))
	for k, vs := range header {
		r.Header[k] = vs
	}
	if hasBody && ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	return Generated{Request: r, Body: raw, Mutation: mutation}
}

func fixedParam(fixed func(Operation, string) (string, bool), op Operation, p *openapi3.Parameter) (string, bool) {
	if fixed == nil || p.In != openapi3.ParameterInPath {
		return "", false
	}
	return fixed(op, p.Name)
}

// rawBody is a body sent as it is (not JSON-encoded): a mutation's malformed document.
type rawBody []byte

type gen struct {
	r *rand.Rand
	// extra adds, now and then, a member the schema does not name to an object whose
	// additionalProperties is unstated, which JSON Schema allows: a server that refuses it
	// owes the document additionalProperties: false.
	extra bool
}

func (g *gen) body(rb *openapi3.RequestBody) (string, any, bool) {
	types := make([]string, 0, len(rb.Content))
	for ct := range rb.Content {
		types = append(types, ct)
	}
	sort.Strings(types)
	ct := ""
	for _, t := range types {
		if t == "application/json" {
			ct = t
		}
	}
	if ct == "" && len(types) > 0 {
		ct = types[0]
	}
	mt := rb.Content[ct]
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return ct, map[string]any{}, true
	}
	return ct, g.value(mt.Schema.Value, 0), true
}

func (g *gen) scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, g.scalar(e))
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(x)
	}
}

const maxDepth = 5

func typeOf(s *openapi3.Schema) string {
	if s.Type == nil {
		switch {
		case len(s.Properties) > 0:
			return "object"
		case s.Items != nil:
			return "array"
		}
		return ""
	}
	for _, t := range s.Type.Slice() {
		if t != "null" {
			return t
		}
	}
	return "null"
}

// value is a value s accepts.
func (g *gen) value(s *openapi3.Schema, depth int) any {
	switch {
	case s == nil:
		return "x"
	case s.Const != nil:
		return s.Const
	case len(s.Enum) > 0:
		return s.Enum[g.r.IntN(len(s.Enum))]
	case typeOf(s) == "object" && len(s.OneOf)+len(s.AnyOf) > 0:
		return g.value(g.branch(s), depth)
	case len(s.OneOf) > 0:
		return g.value(s.OneOf[g.r.IntN(len(s.OneOf))].Value, depth+1)
	case len(s.AnyOf) > 0:
		return g.value(s.AnyOf[g.r.IntN(len(s.AnyOf))].Value, depth+1)
	case len(s.AllOf) > 0:
		merged := map[string]any{}
		for _, sub := range s.AllOf {
			if m, ok := g.value(sub.Value, depth+1).(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			}
		}
		if own, ok := g.object(s, depth).(map[string]any); ok {
			for k, v := range own {
				merged[k] = v
			}
		}
		return merged
	}
	switch typeOf(s) {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.array(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		return float64(g.integer(s))
	case "number":
		return float64(g.integer(s))
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	}
	if s.Example != nil {
		return s.Example
	}
	return "x"
}

// branch is an object schema s with its anyOf (or oneOf) resolved to one branch whose
// constraints (required members, their least sizes) are merged in: the document states
// "at least one of" that way (SettingsPatch, JSONRPCMessage).
func (g *gen) branch(s *openapi3.Schema) *openapi3.Schema {
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	b := alts[g.r.IntN(len(alts))].Value
	m := *s
	m.AnyOf, m.OneOf = nil, nil
	if b == nil {
		return &m
	}
	m.Required = append(slices.Clone(s.Required), b.Required...)
	m.Properties = openapi3.Schemas{}
	for n, p := range s.Properties {
		m.Properties[n] = p
	}
	if not := b.Not; not != nil && not.Value != nil {
		// The branch forbids members (a request carries no result): leave them out.
		forbid := slices.Clone(not.Value.Required)
		for _, a := range not.Value.AnyOf {
			if a.Value != nil {
				forbid = append(forbid, a.Value.Required...)
			}
		}
		for _, n := range forbid {
			delete(m.Properties, n)
		}
	}
	for n, bp := range b.Properties {
		p, ok := m.Properties[n]
		if !ok || p.Value == nil || bp.Value == nil {
			continue
		}
		c := *p.Value
		c.MinProps = max(c.MinProps, bp.Value.MinProps)
		c.MinItems = max(c.MinItems, bp.Value.MinItems)
		c.MinLength = max(c.MinLength, bp.Value.MinLength)
		m.Properties[n] = &openapi3.SchemaRef{Value: &c}
	}
	return &m
}

// conditional applies s's if/then/else to the object v: the branch that holds adds its
// required members or drops those it forbids (not required).
func (g *gen) conditional(s *openapi3.Schema, v map[string]any, depth int) {
	if s.If == nil || s.If.Value == nil {
		return
	}
	b := s.Else
	if s.If.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()) == nil {
		b = s.Then
	}
	if b == nil || b.Value == nil {
		return
	}
	if b.Value.Not != nil && b.Value.Not.Value != nil {
		for _, n := range b.Value.Not.Value.Required {
			delete(v, n)
		}
	}
	for _, n := range b.Value.Required {
		if _, ok := v[n]; !ok && s.Properties[n] != nil {
			v[n] = g.value(s.Properties[n].Value, depth+1)
		}
	}
}

func (g *gen) object(s *openapi3.Schema, depth int) any {
	out := map[string]any{}
	defer g.conditional(s, out, depth)
	if len(s.Properties) == 0 && (s.AdditionalProperties.Schema != nil || s.MinProps > 0) {
		return g.mapOf(s, depth)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	max := -1
	if s.MaxProps != nil {
		max = int(*s.MaxProps)
	}
	for _, n := range names {
		p := s.Properties[n]
		if p.Value == nil || p.Value.ReadOnly {
			continue
		}
		need := slices.Contains(s.Required, n)
		if !need && (depth >= maxDepth || g.r.IntN(3) == 0 || max >= 0 && len(out) >= max) {
			continue
		}
		out[n] = g.value(p.Value, depth+1)
	}
	if g.extra && len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil &&
		(max < 0 || len(out) < max) && g.r.IntN(5) == 0 {
		out["zzExtra"] = "x"
	}
	if max >= 0 {
		for len(out) > max {
			for k := range out {
				if !slices.Contains(s.Required, k) {
					delete(out, k)
					break
				}
			}
			if len(out) > max {
				break
			}
		}
	}
	if uint64(len(out)) < s.MinProps && len(names) > 0 {
		for _, n := range names {
			if _, ok := out[n]; !ok && uint64(len(out)) < s.MinProps {
				out[n] = g.value(s.Properties[n].Value, depth+1)
			}
		}
	}
	return out
}

// mapOf fills a map-shaped object (no properties, an additionalProperties schema) with its
// least number of entries or a few more, keys drawn from propertyNames.
func (g *gen) mapOf(s *openapi3.Schema, depth int) map[string]any {
	out := map[string]any{}
	n := int(s.MinProps) + g.r.IntN(3)
	if s.MaxProps != nil && n > int(*s.MaxProps) {
		n = int(*s.MaxProps)
	}
	key := &openapi3.Schema{Type: &openapi3.Types{"string"}, MinLength: 1, MaxLength: ptr(uint64(16))}
	if s.PropertyNames != nil && s.PropertyNames.Value != nil {
		key = s.PropertyNames.Value
	}
	var value *openapi3.Schema // any value: a short string
	if s.AdditionalProperties.Schema != nil {
		value = s.AdditionalProperties.Schema.Value
	}
	for tries := 0; len(out) < n && tries < 4*n+4; tries++ {
		out[g.scalar(g.value(key, depth+1))] = g.value(value, depth+1)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func (g *gen) array(s *openapi3.Schema, depth int) any {
	n := int(s.MinItems)
	hi := n + 3
	if s.MaxItems != nil && int(*s.MaxItems) < hi {
		hi = int(*s.MaxItems)
	}
	if depth < maxDepth && hi > n {
		n += g.r.IntN(hi - n + 1)
	}
	out := []any{}
	seen := map[string]bool{}
	for tries := 0; len(out) < n && tries < 4*n+4; tries++ {
		var v any = "x"
		if s.Items != nil {
			v = g.value(s.Items.Value, depth+1)
		}
		if s.UniqueItems {
			k, _ := json.Marshal(v)
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
		}
		out = append(out, v)
	}
	return out
}

func (g *gen) integer(s *openapi3.Schema) int {
	lo, hi := 0, 50
	if s.Min != nil {
		lo = int(*s.Min)
		if hi < lo {
			hi = lo + 50
		}
	}
	if s.Max != nil {
		hi = int(*s.Max)
		if lo > hi {
			lo = hi
		}
	}
	if s.ExclusiveMin.Value != nil {
		lo = int(*s.ExclusiveMin.Value) + 1
	}
	if s.ExclusiveMax.Value != nil {
		hi = int(*s.ExclusiveMax.Value) - 1
	}
	if hi < lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}

const letters = "abcdefghijklmnopqrstuvwxyz0123456789"

func (g *gen) str(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return time.Date(2026, 11, 1+g.r.IntN(20), g.r.IntN(24), 0, 0, 0, time.UTC).Format(time.RFC3339)
	case "date":
		return time.Date(2026, 11, 1+g.r.IntN(20), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	case "email":
		return "user" + strconv.Itoa(g.r.IntN(100)) + "@example.com"
	case "uri", "url":
		return "https://example.com/" + strconv.Itoa(g.r.IntN(100))
	case "uuid":
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", g.r.Uint32(), g.r.Uint64()&0xffffffffffff)
	}
	if s.Pattern != "" {
		if v, ok := g.fromPattern(s.Pattern, s); ok {
			return v
		}
	}
	n := int(s.MinLength)
	hi := n + 12
	if n == 0 {
		n = 1
	}
	if s.MaxLength != nil && int(*s.MaxLength) < hi {
		hi = int(*s.MaxLength)
	}
	if hi > n {
		n += g.r.IntN(hi - n + 1)
	}
	if s.MaxLength != nil && n > int(*s.MaxLength) {
		n = int(*s.MaxLength)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.r.IntN(len(letters))]
	}
	return string(b)
}

// fromPattern draws a string the pattern matches, within the schema's lengths; ok is false
// when a few draws find none.
func (g *gen) fromPattern(pattern string, s *openapi3.Schema) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	for range 8 {
		var sb strings.Builder
		g.regex(&sb, re)
		v := sb.String()
		n := uint64(len([]rune(v)))
		if n >= s.MinLength && (s.MaxLength == nil || n <= *s.MaxLength) {
			return v, true
		}
	}
	return "", false
}

func (g *gen) regex(sb *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		sb.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		sb.WriteRune(g.fromClass(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte(letters[g.r.IntN(len(letters))])
	case syntax.OpCapture:
		g.regex(sb, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			g.regex(sb, sub)
		}
	case syntax.OpAlternate:
		g.regex(sb, re.Sub[g.r.IntN(len(re.Sub))])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 4
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 || hi > lo+4 {
			hi = lo + 4
		}
		for range lo + g.r.IntN(hi-lo+1) {
			g.regex(sb, re.Sub[0])
		}
	}
}

// fromClass picks a printable rune of a character class (pairs of ranges), preferring
// ASCII letters and digits so the value reads well in a finding.
func (g *gen) fromClass(ranges []rune) rune {
	var nice []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], 0x21); c <= ranges[i+1] && c <= 0x7e; c++ {
			nice = append(nice, c)
		}
	}
	if len(nice) > 0 {
		return nice[g.r.IntN(len(nice))]
	}
	if len(ranges) >= 2 {
		return ranges[0]
	}
	return 'x'
}

// CrossFieldRules are the operation's x-cross-field-rules: the refusals of a schema-valid
// request the document names but a schema cannot state (a target that must differ from the
// source, an id that must equal the path's), as problem field → the rule, or
// "code:<problem code>" → the rule for a refusal that names no field (a header's).
func (o Operation) CrossFieldRules() map[string]string {
	raw, ok := o.Op.Extensions["x-cross-field-rules"]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(raw)
	var rules map[string]string
	_ = json.Unmarshal(b, &rules)
	return rules
}

// Covers reports whether rules name field: a key is the field, or a pattern in which "*"
// stands for any run of characters ("rules[*].id", "match.*").
func Covers(rules map[string]string, field string) bool {
	for k := range rules {
		parts := strings.Split(k, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		if regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(field) {
			return true
		}
	}
	return false
}
