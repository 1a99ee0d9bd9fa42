package apicheck

import (
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// The generator's leaves: arrays, integers and strings within their schema's bounds,
// patterns included.

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
