package toolcatalog

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// score rates source si for target ti: the name signal weighted by type compatibility,
// adjusted by what the samples show.
func (m *mapper) score(si, ti int) candidate {
	s, t := m.sources[si], m.targets[ti]
	c := candidate{source: si, target: ti}
	var why string
	c.name, why = nameSimilarity(s, t)
	c.reasons = append(c.reasons, why)
	c.typ = typeCompatibility(s.class, t.class)
	tc, _ := t.concept()
	accepts := acceptedFormats(tc, t.class)
	if f := s.samples.format; f != "" && len(accepts) > 0 {
		share := fmt.Sprintf("%d/%d", s.samples.matched, s.samples.seen)
		switch {
		case slices.Contains(accepts, f):
			c.evidence = 0.08
			why := fmt.Sprintf("samples are %s (%s), as %s expects", formatWords[f], share, t.spec.Name)
			if c.name < 0.4 && rescuing[f] {
				// Formats this specific say what the field holds even when its name does not.
				c.name = 0.55
				c.reasons[0] = "names differ, but " + why
			} else {
				c.reasons = append(c.reasons, why)
			}
		case distinctive[f]:
			c.evidence = -0.25
			c.reasons = append(c.reasons, fmt.Sprintf("samples are %s (%s), which %s does not hold", formatWords[f], share, t.spec.Name))
		case allDistinctive(accepts):
			c.evidence = -0.15
			c.reasons = append(c.reasons, fmt.Sprintf("samples are %s (%s), not %s", formatWords[f], share, formatWords[accepts[0]]))
		}
	}
	c.reasons = append(c.reasons, typeReason(s, t, c.typ))
	c.score = clamp(c.name*(0.55+0.45*c.typ)+c.evidence, 0, 0.99)
	return c
}

func allDistinctive(formats []string) bool {
	for _, f := range formats {
		if !distinctive[f] {
			return false
		}
	}
	return true
}

func acceptedFormats(concept, class string) []string {
	var out []string
	if c := conceptByID[concept]; c != nil {
		out = append(out, c.accepts...)
	}
	for _, f := range typeAccepts[class] {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func typeReason(s, t analyzedField, compat float64) string {
	st, tt := s.class, t.class
	if st == typeUnknown {
		st = strings.ToLower(s.spec.Type)
	}
	if tt == typeUnknown {
		tt = strings.ToLower(t.spec.Type)
	}
	switch {
	case compat >= 1:
		return "types match (" + tt + ")"
	case compat >= 0.8:
		return fmt.Sprintf("types compatible (%s → %s)", st, tt)
	}
	return fmt.Sprintf("types differ (%s → %s), a conversion is needed", st, tt)
}

// nameSimilarity compares two names as concepts and qualifiers, falling back to their
// words when either names no known concept.
func nameSimilarity(s, t analyzedField) (float64, string) {
	a, b := s.name, t.name
	if len(a.tokens) > 0 && slices.Equal(a.tokens, b.tokens) {
		return 1, "names match after normalisation (" + strings.Join(a.tokens, " ") + ")"
	}
	ca, descA := s.concept()
	cb, descB := t.concept()
	if ca != "" && cb != "" {
		q, qwhy := qualifierAgreement(a.qualifiers, b.qualifiers)
		var base float64
		var why string
		switch {
		case ca == "record_id" && externalRef(t) || cb == "record_id" && externalRef(s):
			// A record's own bare id is what the other system keeps as its external
			// reference: the usual way two systems remember each other's records.
			base = 0.85
			why = fmt.Sprintf("%s is the record's own id, %s holds the other system's id", s.spec.Name, t.spec.Name)
			q, qwhy = 1, ""
		case ca == cb:
			base = 0.95 * q
			why = fmt.Sprintf("%s and %s both name %s", s.spec.Name, t.spec.Name, conceptWords(ca))
			if !slices.Equal(a.weak, b.weak) {
				base -= 0.02
			}
		case relatedness(ca, cb) > 0:
			base = relatedness(ca, cb) * q
			why = fmt.Sprintf("%s (%s) is close to %s (%s)", s.spec.Name, conceptWords(ca), t.spec.Name, conceptWords(cb))
		default:
			return 0.05, fmt.Sprintf("%s names %s, %s names %s", s.spec.Name, conceptWords(ca), t.spec.Name, conceptWords(cb))
		}
		if descA || descB {
			base *= 0.85
			why += " (read from the description)"
		}
		if qwhy != "" {
			why += "; " + qwhy
		}
		return base, why
	}
	d := tokenDice(significant(a), significant(b))
	if d == 0 {
		return 0, "names share no words"
	}
	return 0.85 * d, fmt.Sprintf("names share words (%.0f%% alike)", d*100)
}

// externalRef reports a field that holds another system's id for the record.
func externalRef(f analyzedField) bool {
	c, _ := f.concept()
	return c == "external_id" || slices.Contains(f.name.qualifiers, "external") &&
		(c == "order_number" || c == "customer_id" || c == "vendor_id" || c == "contact_id" || c == "record_id" ||
			c == "invoice_number" || c == "sku")
}

func conceptWords(id string) string { return strings.ReplaceAll(id, "_", " ") }

// qualifierAgreement compares the strong qualifiers: the same (or none on both sides) is
// full agreement; billing against shipping is nearly a contradiction.
func qualifierAgreement(a, b []string) (float64, string) {
	switch {
	case slices.Equal(a, b):
		return 1, ""
	case slices.Contains(a, "secondary") != slices.Contains(b, "secondary"):
		// "Address 2" must not take the primary address, nor phone2 the main phone.
		return 0.4, "only one side is a second instance (" + strings.Join(append(slices.Clone(a), b...), ", ") + ")"
	case len(a) == 0 || len(b) == 0:
		return 0.76, "qualified on one side only (" + strings.Join(append(slices.Clone(a), b...), ", ") + ")"
	}
	for _, q := range a {
		if slices.Contains(b, q) {
			return 0.63, fmt.Sprintf("qualifiers partly differ (%s vs %s)", strings.Join(a, " "), strings.Join(b, " "))
		}
	}
	return 0.27, fmt.Sprintf("qualifiers differ (%s vs %s)", strings.Join(a, " "), strings.Join(b, " "))
}

func significant(f fieldName) []string {
	var out []string
	for _, t := range f.tokens {
		if !weakWords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return f.tokens
	}
	return out
}

// tokenDice is the Dice coefficient of two word lists where words also match as a prefix
// of each other (cust/customer) or with a small typo, at a discount.
func tokenDice(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	var sum float64
	for _, x := range a {
		best := 0.0
		for _, y := range b {
			best = max(best, wordMatch(x, y))
		}
		sum += best
	}
	for _, y := range b {
		best := 0.0
		for _, x := range a {
			best = max(best, wordMatch(x, y))
		}
		sum += best
	}
	return sum / float64(len(a)+len(b))
}

func wordMatch(x, y string) float64 {
	switch {
	case x == y:
		return 1
	case len(x) >= 3 && len(y) >= 3 && (strings.HasPrefix(x, y) || strings.HasPrefix(y, x)) &&
		float64(min(len(x), len(y)))/float64(max(len(x), len(y))) >= 0.5:
		return 0.7
	case len(x) >= 5 && len(y) >= 5 && levenshtein(x, y) <= 1:
		return 0.7
	}
	return 0
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func round2(v float64) float64 { return math.Round(v*100) / 100 }
