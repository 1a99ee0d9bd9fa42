package apicheck

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// mutate breaks one thing the document asks of the request and says what; "" when op has
// nothing to break. The caller still asks the validator whether the result is invalid.
func (g *gen) mutate(op Operation, body *any, hasBody *bool, ctype string,
	param func(name, in string) (*openapi3.Parameter, *string), params []*openapi3.Parameter) string {
	var options []func() string
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil && ctype == "application/json" {
		schema := rb.Value.Content[ctype].Schema
		options = append(options, g.bodyMutations(body, hasBody, rb.Value.Required, schema)...)
	}
	for _, p := range params {
		if p.In == openapi3.ParameterInPath || p.Schema == nil || p.Schema.Value == nil {
			continue
		}
		for _, m := range g.valueMutations(p.Schema.Value) {
			_, v := param(p.Name, p.In)
			options = append(options, func() string {
				nv, what := m()
				*v = g.scalar(nv)
				return p.In + " " + p.Name + " " + what
			})
		}
	}
	if len(options) == 0 {
		return ""
	}
	return options[g.r.IntN(len(options))]()
}

func (g *gen) bodyMutations(body *any, hasBody *bool, required bool, ref *openapi3.SchemaRef) []func() string {
	set := func(raw string, what string) func() string {
		return func() string { *body, *hasBody = rawBody(raw), true; return what }
	}
	out := []func() string{set("null", "body null"), set("{", "body not JSON")}
	if ref == nil || ref.Value == nil {
		return out
	}
	s := ref.Value
	if typeOf(s) == "object" {
		out = append(out, set("[]", "body an array"))
		if required {
			out = append(out, func() string { *hasBody = false; *body = nil; return "body missing" })
		}
	}
	m, ok := (*body).(map[string]any)
	if !ok {
		return out
	}
	if closed(s) {
		out = append(out, func() string { m["zzUnknown"] = 1; *hasBody = true; return "unknown member zzUnknown" })
	}
	for _, site := range closedWithin(s, m, "") {
		out = append(out, func() string {
			site.m["zzUnknown"] = 1
			*hasBody = true
			return "unknown member " + site.at + ".zzUnknown"
		})
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n].Value
		if p == nil || p.ReadOnly {
			continue
		}
		if slices.Contains(s.Required, n) {
			out = append(out, func() string { delete(m, n); *hasBody = true; return "without required " + n })
			if p.Type == nil || !p.Type.Includes("null") {
				out = append(out, func() string { m[n] = nil; *hasBody = true; return n + " null" })
			}
		}
		for _, vm := range g.valueMutations(p) {
			out = append(out, func() string { v, what := vm(); m[n] = v; *hasBody = true; return n + " " + what })
		}
	}
	return out
}

// valueMutations are the ways of giving s a value it refuses.
func (g *gen) valueMutations(s *openapi3.Schema) []func() (any, string) {
	var out []func() (any, string)
	t := typeOf(s)
	if len(s.Enum) > 0 {
		out = append(out, func() (any, string) { return "not-in-enum", "not in its enum" })
	}
	switch t {
	case "string":
		if s.MaxLength != nil {
			out = append(out, func() (any, string) {
				return strings.Repeat("a", int(*s.MaxLength)+1), "over maxLength " + strconv.FormatUint(*s.MaxLength, 10)
			})
		}
		if s.MinLength > 0 {
			out = append(out, func() (any, string) { return "", "empty (minLength " + strconv.FormatUint(s.MinLength, 10) + ")" })
		}
		if s.Pattern != "" {
			out = append(out, func() (any, string) { return "~ not\tmatching ~", "not matching its pattern" })
		}
		if s.Format == "date-time" {
			out = append(out, func() (any, string) { return "yesterday", "not a date-time" })
		}
	case "integer", "number":
		if s.Max != nil {
			out = append(out, func() (any, string) { return *s.Max + 1, "above its maximum" })
		}
		if s.Min != nil {
			out = append(out, func() (any, string) { return *s.Min - 1, "below its minimum" })
		}
		out = append(out, func() (any, string) { return "abc", "not a number" })
	case "array":
		if s.MaxItems != nil && *s.MaxItems < 50 {
			out = append(out, func() (any, string) {
				items := make([]any, *s.MaxItems+1)
				for i := range items {
					if s.Items != nil {
						items[i] = g.value(s.Items.Value, maxDepth)
					}
				}
				return items, "over maxItems"
			})
		}
		if s.MinItems > 0 {
			out = append(out, func() (any, string) { return []any{}, "fewer than minItems" })
		}
	case "boolean":
		out = append(out, func() (any, string) { return "yes", "not a boolean" })
	}
	if t == "object" || t == "array" {
		out = append(out, func() (any, string) { return 7, "a number where a " + t + " belongs" })
	}
	return out
}

// closed reports whether s refuses members it does not name (additionalProperties: false).
func closed(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
}

// site is an object inside a generated body, at its path ("rules[0].match").
type site struct {
	at string
	m  map[string]any
}

// closedWithin are the objects nested in v (not v itself: at is "" there) whose schema is
// closed: an unknown member there makes the request invalid as surely as one at the top
// (the document's rule for nested objects, issue 36 §2). It follows v's members, items
// and map values, and of a oneOf or anyOf the one branch v matches.
func closedWithin(s *openapi3.Schema, v any, at string) []site {
	var out []site
	seen := map[string]bool{}
	var walk func(s *openapi3.Schema, v any, at string)
	walk = func(s *openapi3.Schema, v any, at string) {
		if s == nil {
			return
		}
		if m, ok := v.(map[string]any); ok && at != "" && closed(s) && len(s.Properties) > 0 && !seen[at] {
			seen[at] = true
			out = append(out, site{at, m})
		}
		for _, alts := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf} {
			walk(matching(alts, v), v, at)
		}
		for _, sub := range s.AllOf {
			walk(sub.Value, v, at)
		}
		switch x := v.(type) {
		case map[string]any:
			for _, n := range sortedKeys(x) {
				child := strings.TrimPrefix(at+"."+n, ".")
				if p, named := s.Properties[n]; named {
					walk(p.Value, x[n], child)
				} else if s.AdditionalProperties.Schema != nil {
					walk(s.AdditionalProperties.Schema.Value, x[n], child)
				}
			}
		case []any:
			if s.Items != nil {
				for i, e := range x {
					walk(s.Items.Value, e, at+"["+strconv.Itoa(i)+"]")
				}
			}
		}
	}
	walk(s, v, at)
	return out
}

// NestsClosed reports whether op's JSON body can hold an object nested below its top whose
// schema is closed: false means no seed's mutation is an unknown member inside the body, so
// a search for one (the compose fuzz's seeds) need not generate a thousand requests to learn
// it. It walks every branch closedWithin could follow, whatever the value, so it says true
// wherever closedWithin could find a site.
func (o Operation) NestsClosed() bool {
	rb := o.Op.RequestBody
	if rb == nil || rb.Value == nil || rb.Value.Content["application/json"] == nil {
		return false
	}
	ref := rb.Value.Content["application/json"].Schema
	if ref == nil {
		return false
	}
	type visit struct {
		s      *openapi3.Schema
		nested bool
	}
	seen := map[visit]bool{}
	var walk func(s *openapi3.Schema, nested bool) bool
	walk = func(s *openapi3.Schema, nested bool) bool {
		if s == nil || seen[visit{s, nested}] {
			return false
		}
		seen[visit{s, nested}] = true
		if nested && closed(s) && len(s.Properties) > 0 {
			return true
		}
		for _, alts := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
			for _, a := range alts {
				if a != nil && walk(a.Value, nested) {
					return true
				}
			}
		}
		for _, p := range s.Properties {
			if p != nil && walk(p.Value, true) {
				return true
			}
		}
		if a := s.AdditionalProperties.Schema; a != nil && walk(a.Value, true) {
			return true
		}
		return s.Items != nil && walk(s.Items.Value, true)
	}
	return walk(ref.Value, false)
}

// matching is the one branch of alts that v is valid against (nil: none, or several).
func matching(alts []*openapi3.SchemaRef, v any) *openapi3.Schema {
	var found *openapi3.Schema
	for _, a := range alts {
		if a.Value == nil || a.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()) != nil {
			continue
		}
		if found != nil {
			return nil
		}
		found = a.Value
	}
	return found
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
