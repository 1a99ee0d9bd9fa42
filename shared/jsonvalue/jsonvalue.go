// Package jsonvalue reads and compares JSON values as people wrote them: numbers keep
// their digits (json.Number, never a float64 rounding of 12345678901234567890) and compare
// by value (10.50 is 10.5), so a value someone vouched for is the value written, and two
// forms of one value are one.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// Unmarshal is json.Unmarshal with numbers decoded as json.Number: what is read back is
// what was written, digit for digit.
func Unmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

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
	if Unmarshal(b, &x) != nil {
		return string(b)
	}
	b, _ = json.Marshal(canonNumbers(x))
	return string(b)
}

// Same reports whether a and b are the same JSON value (numbers by value: Canon).
func Same(a, b any) bool { return Canon(a) == Canon(b) }

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
