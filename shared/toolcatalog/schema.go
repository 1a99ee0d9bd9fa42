package toolcatalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Schema is the subset of JSON Schema (2020-12) the tools' input schemas use. It is small
// on purpose: the catalogue route and tools/list publish it, and validate checks
// arguments against exactly what was published, so the two cannot disagree.
type Schema struct {
	Type        string             `json:"type"`
	Description string             `json:"description,omitempty"`
	Properties  map[string]*Schema `json:"-"`
	Required    []string           `json:"required,omitempty"`
	Items       *Schema            `json:"items,omitempty"`
	// AdditionalProperties false refuses arguments the schema does not name; nil allows
	// them (and they are ignored).
	AdditionalProperties *bool    `json:"additionalProperties,omitempty"`
	Enum                 []string `json:"enum,omitempty"`
	Minimum              *float64 `json:"minimum,omitempty"`
	Maximum              *float64 `json:"maximum,omitempty"`
}

// MarshalJSON writes "properties" whenever the schema declares them, even when there are
// none: some agent runtimes refuse an object schema without a properties member.
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	out := struct {
		*plain
		Properties json.RawMessage `json:"properties,omitempty"`
	}{plain: (*plain)(s)}
	if s.Properties != nil {
		b, err := json.Marshal(s.Properties)
		if err != nil {
			return nil, err
		}
		out.Properties = b
	}
	return json.Marshal(out)
}

func ptr[T any](v T) *T { return &v }

// closed is additionalProperties: false.
var closed = ptr(false)

// argumentErrors is a list of invalid arguments; tools return it for checks the schema
// cannot express, and the call answers it like a schema violation.
type argumentErrors []httpapi.FieldError

func (e argumentErrors) Error() string {
	parts := make([]string, len(e))
	for i, f := range e {
		parts[i] = f.Field + ": " + f.Message
	}
	return "invalid arguments: " + strings.Join(parts, "; ")
}

// validate checks v (decoded with UseNumber) against s and returns every violation, each
// phrased so that a model can correct its call. Messages never quote the offending
// value: a value may be a secret, and the audit record keeps the messages' field names.
func validate(s *Schema, v any, path string) argumentErrors {
	var errs argumentErrors
	add := func(msg string) {
		field := path
		if field == "" {
			field = "arguments"
		}
		errs = append(errs, httpapi.FieldError{Field: field, Message: msg})
	}
	if !hasType(s.Type, v) {
		add(fmt.Sprintf("must be %s (got %s)", article(s.Type), jsonType(v)))
		return errs
	}
	switch s.Type {
	case "object":
		obj := v.(map[string]any)
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				add(fmt.Sprintf("%q is required (%s)", name, article(s.Properties[name].Type)))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			prop, ok := s.Properties[name]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					add(fmt.Sprintf("%q is not an argument here; allowed: %s", name, allowed(s)))
				}
				continue
			}
			errs = append(errs, validate(prop, obj[name], join(path, name))...)
		}
	case "array":
		if s.Items != nil {
			for i, item := range v.([]any) {
				errs = append(errs, validate(s.Items, item, path+"["+strconv.Itoa(i)+"]")...)
			}
		}
	case "string":
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, v.(string)) {
			add("must be one of: " + strings.Join(s.Enum, ", "))
		}
	case "number", "integer":
		f, _ := v.(json.Number).Float64()
		if s.Minimum != nil && f < *s.Minimum || s.Maximum != nil && f > *s.Maximum {
			add(fmt.Sprintf("must be between %s and %s", num(s.Minimum), num(s.Maximum)))
		}
	}
	return errs
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func allowed(s *Schema) string {
	if len(s.Properties) == 0 {
		return "none (call it with {})"
	}
	return strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", ")
}

func num(f *float64) string {
	if f == nil {
		return "any"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

func hasType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		n, ok := v.(json.Number)
		if ok {
			_, err := n.Float64()
			ok = err == nil
		}
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if ok {
			_, err := n.Int64()
			ok = err == nil
		}
		return ok
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "an unknown value"
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "":
		return "a value"
	}
	return "a " + t
}

// dropOptionalNulls removes null members that s does not require, at the top level and in
// objects nested through properties and items. Models often send null for "not given";
// treating it as absent is kinder than refusing a call whose meaning is clear.
func dropOptionalNulls(s *Schema, v any) {
	switch val := v.(type) {
	case map[string]any:
		if s.Type != "object" {
			return
		}
		for name, member := range val {
			if member == nil && !slices.Contains(s.Required, name) && s.Properties[name] != nil {
				delete(val, name)
				continue
			}
			if prop := s.Properties[name]; prop != nil {
				dropOptionalNulls(prop, member)
			}
		}
	case []any:
		if s.Type == "array" && s.Items != nil {
			for _, item := range val {
				dropOptionalNulls(s.Items, item)
			}
		}
	}
}
