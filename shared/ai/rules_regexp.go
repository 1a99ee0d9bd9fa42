package ai

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// fastRE is a regexp with the literals one of which any match must contain. The rules run
// about a hundred patterns over every error; most cannot match, and a substring test says
// so for a fraction of what Go's backtracking matcher needs.
type fastRE struct {
	re *regexp.Regexp
	// lits are lower-case; nil means the pattern has no required literal and always runs.
	lits []string
}

func mustFast(pattern string) fastRE {
	return fastRE{re: regexp.MustCompile(pattern), lits: requiredLiterals(pattern)}
}

// mayMatch reports whether the pattern can match text, whose lower-cased form is lower.
func (f fastRE) mayMatch(lower string) bool {
	if f.lits == nil {
		return true
	}
	for _, l := range f.lits {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}

func (f fastRE) MatchString(text, lower string) bool {
	return f.mayMatch(lower) && f.re.MatchString(text)
}

func (f fastRE) FindStringSubmatch(text, lower string) []string {
	if !f.mayMatch(lower) {
		return nil
	}
	return f.re.FindStringSubmatch(text)
}

func (f fastRE) FindAllStringSubmatch(text, lower string) [][]string {
	if !f.mayMatch(lower) {
		return nil
	}
	return f.re.FindAllStringSubmatch(text, -1)
}

// requiredLiterals returns lower-case strings such that every match of pattern contains
// at least one of them, or nil when it cannot tell.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lits := literalsOf(re.Simplify())
	for _, l := range lits {
		if len(l) < 2 {
			return nil // too weak to be worth a pass
		}
	}
	return lits
}

func literalsOf(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := literalsOf(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// Any one required part will do; the one with the longest shortest literal
		// filters best.
		var best []string
		bestLen := 0
		for _, s := range re.Sub {
			l := literalsOf(s)
			if l == nil {
				continue
			}
			shortest := len(l[0])
			for _, x := range l {
				shortest = min(shortest, len(x))
			}
			if shortest > bestLen {
				best, bestLen = l, shortest
			}
		}
		return best
	}
	return nil
}
