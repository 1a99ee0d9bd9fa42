package dlp

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// The lexer half of the JSON walk: where a literal, number or string token ends, and a
// string's decoded value, read straight from the document's bytes.

func literal(b []byte, i int, word string) (int, error) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, errAt(i, "invalid literal")
	}
	return i + len(word), nil
}

func numberEnd(b []byte, i int) (int, error) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return start, errAt(i, "invalid value")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, errAt(i, "invalid number")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, errAt(i, "invalid number")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// plainString marks bytes that need no attention inside a JSON string.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainWord reports whether none of the 8 bytes in x is '"', '\\' or a control character:
// the usual bit tricks, so long strings are skipped a word at a time.
func plainWord(x uint64) bool {
	quote := x ^ ('"' * lsb)
	backslash := x ^ ('\\' * lsb)
	return ((quote-lsb)&^quote|(backslash-lsb)&^backslash|(x-0x20*lsb)&^x)&msb == 0
}

// stringEnd returns the offset after the closing quote of the string starting at b[i].
func stringEnd(b []byte, i int) (end int, escaped bool, err error) {
	j := i + 1
	for {
		for j+8 <= len(b) && plainWord(binary.LittleEndian.Uint64(b[j:])) {
			j += 8
		}
		for j < len(b) && plainString[b[j]] {
			j++
		}
		if j >= len(b) {
			return j, escaped, errAt(j, "unterminated string")
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			if j+1 >= len(b) {
				return j, escaped, errAt(j, "unterminated escape")
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || hex4(b[j+2:j+6]) < 0 {
					return j, escaped, errAt(j, "invalid \\u escape")
				}
				j += 6
			default:
				return j, escaped, errAt(j, "invalid escape")
			}
		default:
			return j, escaped, errAt(j, "control character in string")
		}
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// decode returns the string value of the token b[start:end], already validated.
func (st *scanState) decode(start, end int, escaped bool) string {
	raw := st.src[start+1 : end-1]
	if !escaped {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4([]byte(raw[i+2 : i+6]))
			i += 6
			// Same surrogate handling as encoding/json, so offsets refer to the string a
			// consumer of the document decodes.
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4([]byte(raw[i+2:i+6]))); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return string(out)
}

// appendString appends s as a JSON string. Only what JSON requires is escaped; bytes that
// are not UTF-8 pass through as they came, as they did in the input.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[last:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		last = i + 1
	}
	b = append(b, s[last:]...)
	return append(b, '"')
}
