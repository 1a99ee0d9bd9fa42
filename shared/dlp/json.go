package dlp

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth matches encoding/json, so the scanner accepts exactly the documents json.Valid
// accepts and nothing a downstream decoder would refuse slips through as "valid".
const maxDepth = 10000

// The walker below is a hand-written parser rather than encoding/json because the scan
// must keep every byte it does not rewrite (key order, number spelling, whitespace), needs
// the raw span of each token to splice replacements, and must not allocate per value on
// clean documents.

type pathSeg struct {
	key   string
	index int
	isKey bool
}

type scanState struct {
	scanner *Scanner
	dest    Destination
	doc     []byte
	src     string // doc as a string, so values are substrings without copies
	text    bool   // ScanText: the whole src is the one value

	out    []byte // nil until the first rewrite
	copied int    // doc[:copied] is already in out

	path         []pathSeg
	findings     []Finding
	spans        []span
	spanBuf      [8]span
	placeholders map[string]string
	counters     [numKinds]int
}

// scanStates recycles the state of ScanJSON, which the recursive walk would otherwise
// allocate on every scan, with its path.
var scanStates = sync.Pool{New: func() any { return new(scanState) }}

// maxPooledPath keeps the path of a deeply nested document from being pinned in the pool.
const maxPooledPath = 64

func newScanState(s *Scanner, dest Destination, doc []byte, src string) *scanState {
	st := scanStates.Get().(*scanState)
	*st = scanState{scanner: s, dest: dest, doc: doc, src: src, path: st.path[:0]}
	return st
}

// release returns st to the pool. The findings and the output belong to the Result;
// everything that refers to the document (its bytes, the keys on the path) is dropped.
func (st *scanState) release() {
	path := st.path[:cap(st.path)]
	clear(path)
	if cap(path) > maxPooledPath {
		path = nil
	}
	*st = scanState{path: path[:0]}
	scanStates.Put(st)
}

type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s at byte %d: %s", ErrInvalidJSON, e.offset, e.msg)
}

func (e *syntaxError) Unwrap() error { return ErrInvalidJSON }

func errAt(i int, msg string) error { return &syntaxError{offset: i, msg: msg} }

func (st *scanState) document() error {
	st.spans = st.spanBuf[:0]
	i, err := st.value(0, 0, 0)
	if err != nil {
		return err
	}
	if i = skipSpace(st.doc, i); i != len(st.doc) {
		return errAt(i, "data after the top-level value")
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (st *scanState) value(i, depth int, fc fieldCtx) (int, error) {
	b := st.doc
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, errAt(i, "unexpected end of input")
	}
	switch b[i] {
	case '{':
		return st.object(i, depth+1)
	case '[':
		return st.array(i, depth+1, fc)
	case '"':
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return end, err
		}
		st.scanString(i, end, st.decode(i, end, esc), fc)
		return end, nil
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	end, err := numberEnd(b, i)
	if err != nil {
		return end, err
	}
	st.scanNumber(i, end, fc)
	return end, nil
}

func (st *scanState) object(i, depth int) (int, error) {
	if depth > maxDepth {
		return i, errAt(i, "nesting too deep")
	}
	b := st.doc
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	st.path = append(st.path, pathSeg{isKey: true})
	seg := len(st.path) - 1
	for {
		if i >= len(b) || b[i] != '"' {
			return i, errAt(i, "expected a string key")
		}
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return end, err
		}
		key := st.decode(i, end, esc)
		info := st.scanner.keyInfo(key)
		shown := key
		if !info.clean {
			shown = st.scanKey(i, end, key)
		}
		st.path[seg] = pathSeg{key: shown, isKey: true}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, errAt(i, "expected ':' after an object key")
		}
		if i, err = st.value(i+1, depth, info.fc); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errAt(i, "unterminated object")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			st.path = st.path[:seg]
			return i + 1, nil
		default:
			return i, errAt(i, "expected ',' or '}' in an object")
		}
	}
}

// array passes the context of the key holding it to its elements, so "phones": ["..."]
// and "secrets": ["..."] are read like single values.
func (st *scanState) array(i, depth int, fc fieldCtx) (int, error) {
	if depth > maxDepth {
		return i, errAt(i, "nesting too deep")
	}
	b := st.doc
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	st.path = append(st.path, pathSeg{})
	seg := len(st.path) - 1
	for n := 0; ; n++ {
		st.path[seg] = pathSeg{index: n}
		var err error
		if i, err = st.value(i, depth, fc); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errAt(i, "unterminated array")
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			st.path = st.path[:seg]
			return i + 1, nil
		default:
			return i, errAt(i, "expected ',' or ']' in an array")
		}
	}
}

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

// splice replaces the token src[start:end] by repl as a JSON string.
func (st *scanState) splice(start, end int, repl string) {
	if st.out == nil {
		st.out = make([]byte, 0, len(st.src)+len(st.src)/8+64)
	}
	st.out = append(st.out, st.src[st.copied:start]...)
	st.out = appendString(st.out, repl)
	st.copied = end
}

// scanKey scans an object key and returns the key as paths show it.
func (st *scanState) scanKey(start, end int, key string) string {
	spans := st.detect(key, 0)
	if len(spans) == 0 {
		return key
	}
	shown := st.render(key, spans, st.dest)
	if st.dest == ConnectorWrite {
		// The write is not rewritten, but the path that goes to the audit still must not
		// carry the value.
		shown = st.render(key, spans, Record)
	} else {
		st.splice(start, end, shown)
	}
	st.addFindings(key, spans, st.pathString(shown), true)
	return shown
}

func (st *scanState) scanString(start, end int, v string, fc fieldCtx) {
	spans := st.detect(v, fc)
	if len(spans) == 0 {
		return
	}
	st.addFindings(v, spans, st.pathString(""), false)
	if st.dest == ConnectorWrite {
		return
	}
	out := st.render(v, spans, st.dest)
	if st.text {
		st.out = []byte(out)
		return
	}
	st.splice(start, end, out)
}

func (st *scanState) scanNumber(start, end int, fc fieldCtx) {
	// Only field rules and card numbers can apply to a number; the shortest card has 13
	// digits, and most numbers in an ERP document are quantities and amounts.
	if end-start < 13 && fc&(ctxSecret|ctxPhone|ctxSSN) == 0 {
		return
	}
	lit := st.src[start:end]
	spans := st.detect(lit, fc)
	if len(spans) == 0 {
		return
	}
	st.addFindings(lit, spans, st.pathString(""), false)
	if st.dest != ConnectorWrite {
		// A placeholder is not a number; the value becomes a string, which keeps the
		// document valid and its shape (same keys, same array lengths) unchanged.
		st.splice(start, end, st.render(lit, spans, st.dest))
	}
}

func (st *scanState) detect(v string, fc fieldCtx) []span {
	st.spans = resolve(detect(v, fc, st.spans[:0]))
	return st.spans
}

// Paths deeper than maxPathSegs keep their first pathHead and last pathTail elements
// around a "…".
const (
	maxPathSegs = 32
	pathHead    = 8
	pathTail    = 16
)

// pathString renders the current path; extraKey, when set, is appended as a last key
// (the path of an object key that itself holds a finding).
func (st *scanState) pathString(extraKey string) string {
	if st.text {
		return "$"
	}
	b := make([]byte, 0, 64)
	b = append(b, '$')
	segs := st.path
	if extraKey != "" {
		// The last segment is the key being scanned; show it in its rendered form.
		segs = segs[:len(segs)-1]
	}
	for i := 0; i < len(segs); i++ {
		// A hostile document nested thousands deep with a finding at the bottom of each
		// branch would otherwise cost depth bytes per finding: quadratic memory.
		if i == pathHead && len(segs) > maxPathSegs {
			b = append(b, "…"...)
			i = len(segs) - pathTail
		}
		p := segs[i]
		if p.isKey {
			b = appendPathKey(b, p.key)
		} else {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.index), 10)
			b = append(b, ']')
		}
	}
	if extraKey != "" {
		b = appendPathKey(b, extraKey)
	}
	return string(b)
}

func appendPathKey(b []byte, key string) []byte {
	ident := key != ""
	for i := 0; i < len(key) && ident; i++ {
		c := key[i]
		ident = c == '_' || isLetter(c) || (i > 0 && isDigit(c))
	}
	if ident {
		b = append(b, '.')
		return append(b, key...)
	}
	b = append(b, '[')
	b = appendString(b, key)
	return append(b, ']')
}

func (st *scanState) addFindings(v string, spans []span, path string, inKey bool) {
	for _, sp := range spans {
		value := v[sp.start:sp.end]
		if st.scanner.onValue != nil {
			st.scanner.onValue(value)
		}
		st.findings = append(st.findings, Finding{
			Type:       kinds[sp.kind].name,
			Path:       path,
			Start:      sp.start,
			End:        sp.end,
			Key:        inKey,
			Sample:     sample(sp.kind, value),
			Confidence: sp.conf,
		})
	}
}

// render applies dest's policy to the findings of v.
func (st *scanState) render(v string, spans []span, dest Destination) string {
	b := make([]byte, 0, len(v)+16*len(spans))
	last := 0
	for _, sp := range spans {
		b = append(b, v[last:sp.start]...)
		switch value := v[sp.start:sp.end]; dest {
		case AIPrompt:
			b = append(b, st.placeholder(sp.kind, value)...)
		case Stored:
			b = append(b, storedForm(sp.kind, value)...)
		case Display:
			b = append(b, sample(sp.kind, value)...)
		default:
			b = append(b, "[REDACTED:"...)
			b = append(b, kinds[sp.kind].label...)
			b = append(b, ']')
		}
		last = sp.end
	}
	b = append(b, v[last:]...)
	return string(b)
}

func (st *scanState) placeholder(k kind, value string) string {
	key := kinds[k].label + "\x00" + normalize(k, value)
	if p, ok := st.placeholders[key]; ok {
		return p
	}
	if st.placeholders == nil {
		st.placeholders = make(map[string]string)
	}
	st.counters[k]++
	p := "[" + kinds[k].label + "_" + strconv.Itoa(st.counters[k]) + "]"
	st.placeholders[key] = p
	return p
}
