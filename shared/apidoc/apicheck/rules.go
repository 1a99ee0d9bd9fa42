package apicheck

import (
	"encoding/json"
	"regexp"
	"strings"
)

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
