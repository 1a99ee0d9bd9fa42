package policy

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Canon is v as JSON, the form two values are compared (and a case's value before keyed)
// in. Numbers are compared by value, whatever their text: the stored forms of a fix are
// read with their digits (json.Number: "10.50", 12345678901234567890), where knowledge
// learned before, a payload and a request body read float64 (10.5). A number float64
// holds exactly, or whose float64 writes back as the same value, is written as float64
// writes it, so the keys and comparisons of values learned before do not move; any other
// (more digits than float64 keeps) as its exact decimal, so two such numbers that differ
// in a digit are two values, not one rounded.
func Canon(v any) string {
	b, _ := json.Marshal(v)
	var x any
	if syncerror.UnmarshalNumbers(b, &x) != nil {
		return string(b)
	}
	b, _ = json.Marshal(canonNumbers(x))
	return string(b)
}

// SameValue reports whether a and b are the same JSON value (numbers by value: Canon).
func SameValue(a, b any) bool { return Canon(a) == Canon(b) }

func canonNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		return canonNumber(t)
	case []any:
		for i := range t {
			t[i] = canonNumbers(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = canonNumbers(t[k])
		}
	}
	return v
}

// canonNumber is n as float64 when that is the same value, else its exact decimal. A
// number out of float64's range keeps its text: big.Rat would build every digit of an
// exponent such as 1e999999 from a payload.
func canonNumber(n json.Number) any {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return n
	}
	exact, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return n
	}
	written, _ := json.Marshal(f)
	if r, ok := new(big.Rat).SetString(string(written)); ok && r.Cmp(exact) == 0 {
		return f
	}
	if exact.IsInt() {
		return json.Number(exact.Num().String())
	}
	return json.Number(decimal(exact, string(n)))
}

// decimal writes r (a finite decimal, read from text, not whole) with as many fraction
// digits as it needs; text when that takes more than its own length of digits. The
// digits are counted from text (its fraction's, less its exponent), not searched for by
// powers of ten: a payload's number of 100,000 digits took minutes (quadratic).
func decimal(r *big.Rat, text string) string {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.Atoi(text[i+1:])
		if err != nil {
			return text
		}
		mant, exp = text[:i], e
	}
	frac := 0
	if _, f, ok := strings.Cut(mant, "."); ok {
		frac = len(f)
	}
	d := frac - exp
	if d < 1 || d > len(text)+330 {
		return text
	}
	return strings.TrimRight(r.FloatString(d), "0")
}
