package ai

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// fastRE is a regexp with the literals one of which any match must contain. The rules run
// about a hundred patterns over every error; most cannot match, and a substring test says
// so for a fraction of what Go's backtracking matcher needs.
// Its compiledFast's lits are lower-case; nil means the pattern has no required literal
// and always runs.
type fastRE struct{ *compiledFast }

// mustFast is not inlined, nor are lazyRegexp and rule (rules_wording.go): the rules'
// tables call them at about 300 places, all run by the package's initialiser, and inlined
// there they made it 136 KB of code (37 KB less without; issue 37 §4: diagnose ≤ 10 MiB).
//
//go:noinline
func mustFast(pattern string) fastRE {
	f := fastRE{&compiledFast{pattern: pattern}}
	patterns = append(patterns, f.compile)
	return f
}

// compiledFast is compiled on first use: the rules' patterns cost milliseconds to
// compile, and most processes that link this package (the tool catalogue, the local
// stack's other routes) never diagnose.
type compiledFast struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
	lits    []string
}

func (c *compiledFast) compile() {
	c.once.Do(func() { c.re, c.lits = regexp.MustCompile(c.pattern), requiredLiterals(c.pattern) })
}

// patterns compile every pattern of the rules; a test runs them all, so a bad pattern
// fails the tests rather than a diagnosis.
var patterns []func()

// lazyRegexp is regexp.MustCompile on first use. Not inlined, as mustFast.
//
//go:noinline
func lazyRegexp(pattern string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	patterns = append(patterns, func() { f() })
	return f
}

// mayMatch reports whether the pattern can match text, whose lower-cased form is lower.
func (f fastRE) mayMatch(lower string) bool {
	f.compile()
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

func (f fastRE) FindStringIndex(text, lower string) []int {
	if !f.mayMatch(lower) {
		return nil
	}
	return f.re.FindStringIndex(text)
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
