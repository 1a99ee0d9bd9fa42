package governance

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The canonical JSON of a write (the bytes the DLP scan reads and the ledger hashes) is
// defined as what encoding/json.Marshal produces: object keys sorted, HTML characters,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD, floats in the ES6 form.
// Ledger entries written before this encoder existed carry hashes of json.Marshal output,
// so the bytes must stay identical (the tests compare the two on every kind of value).
//
// appendCanonical writes the values a decoded JSON document or a connector payload holds
// (maps of string to any, slices, strings, json.Number, floats, integers, booleans, nil)
// without reflection, and reports false for anything else (structs, typed maps, pointers,
// Marshalers, NaN, an invalid json.Number, nesting deeper than canonicalMaxDepth);
// canonicalJSON then hands the whole document to json.Marshal, which also owns every
// error message.

// canonicalMaxDepth bounds the recursion; a deeper (or cyclic) document goes to
// json.Marshal, which detects cycles.
const canonicalMaxDepth = 64

// canonicalJSON appends the canonical JSON of fields to buf. names, when not nil, are the
// keys of fields sorted (the guard has them already).
func canonicalJSON(buf []byte, fields map[string]any, names []string) ([]byte, error) {
	if fields != nil {
		if out, ok := appendObject(buf, fields, names, 0); ok {
			return out, nil
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return append(buf, b...), nil
}

func appendObject(b []byte, m map[string]any, names []string, depth int) ([]byte, bool) {
	if names == nil {
		var keys [16]string
		names = keys[:0]
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
	}
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendCanonical(b, m[k], depth); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

func appendCanonical(b []byte, v any, depth int) ([]byte, bool) {
	if depth >= canonicalMaxDepth {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case json.Number:
		s := string(v)
		if s == "" {
			s = "0" // what encoding/json writes for the zero Number
		}
		if !validNumber(s) {
			return b, false
		}
		return append(b, s...), true
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendObject(b, v, nil, depth+1)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCanonical(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case []string:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']'), true
	}
	return b, false
}

// appendFloat is encoding/json's float64 encoding: ES6 number-to-string, 'e' form below
// 1e-6 and from 1e21, without a zero-padded exponent. NaN and infinities are not JSON.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// validNumber is the JSON number grammar, as encoding/json checks a json.Number.
func validNumber(s string) bool {
	i, n := 0, len(s)
	if i < n && s[i] == '-' {
		i++
	}
	switch {
	case i < n && s[i] == '0':
		i++
	case i < n && s[i] >= '1' && s[i] <= '9':
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i+1 < n && s[i] == '.' && s[i+1] >= '0' && s[i+1] <= '9' {
		i += 2
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i+1 < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
		}
		if i >= n || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i == n
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are (with HTML escaping on):
// printable, and not '"', '\\', '<', '>' or '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// safeWord reports whether all 8 bytes of x are jsonSafe, so long strings are copied a
// word at a time: no byte below 0x20 or from 0x80, and none of '"', '\\', '<', '>', '&'.
// Each test may also flag a safe byte next to an unsafe one, never miss an unsafe one.
func safeWord(x uint64) bool {
	q, bs, lt, gt, amp := x^('"'*lsb), x^('\\'*lsb), x^('<'*lsb), x^('>'*lsb), x^('&'*lsb)
	zero := (q-lsb)&^q | (bs-lsb)&^bs | (lt-lsb)&^lt | (gt-lsb)&^gt | (amp-lsb)&^amp
	return (x|(x-0x20*lsb)&^x|zero)&msb == 0
}

// load64 reads s[i:i+8] as a little-endian word (the compiler makes it one load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// appendJSONString is encoding/json's string encoding with HTML escaping on.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && safeWord(load64(s, i)) {
			i += 8
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// canonicalBufs recycles the canonical encoding of writes: it lives only until the write
// returns (the DLP scan copies what it keeps, the ledger keeps the hash).
var canonicalBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledCanonical keeps an occasional huge payload from pinning its buffer.
const maxPooledCanonical = 64 << 10

func getCanonicalBuf() *[]byte { return canonicalBufs.Get().(*[]byte) }

func putCanonicalBuf(p *[]byte, b []byte) {
	if cap(b) > maxPooledCanonical {
		return
	}
	*p = b[:0]
	canonicalBufs.Put(p)
}
