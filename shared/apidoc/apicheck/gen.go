package apicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

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
