package dlp

import (
	"fmt"
	"sync"
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
	// lastString is the last string value scanned, and spans its findings: what a pair's
	// name member says is read from them (pairState.read).
	lastString string
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
		return st.object(i, depth+1, inherited(fc)|wrapper(fc))
	case '[':
		return st.array(i, depth+1, fc)
	case '"':
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return end, err
		}
		st.lastString = st.decode(i, end, esc)
		st.scanString(i, end, st.lastString, fc)
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

// inherited is what a field name says about everything in an object under it. An SSN, a
// card or an AWS credential stays one wrapped in an object ({"ssn": {"value": …}}), and
// their detectors validate what they report. A secret's name passes on a weaker context
// ({"password": {"value": …}}, NetSuite's {"custentity_api_password": {"value": …}}):
// objects under "credentials" or "apiKey" hold ids, types, URLs and expiry times as often
// as the secret, so a value there is reported only when it looks like one
// (ctxNestedSecret). "authorization" passes nothing: an object under it is a payment's
// authorization or a return authorization, a record, not a credential. A phone name is
// not passed on: an object under it holds flags and codes as often as the number.
func inherited(fc fieldCtx) fieldCtx {
	out := fc & (ctxAWS | ctxSSN | ctxCard | ctxNotCard | ctxNestedSecret)
	if fc&ctxSecret != 0 && fc&ctxRecordName == 0 {
		out |= ctxNestedSecret
	}
	return out
}

// object scans an object whose enclosing names said outer about it. A name/value pair
// ({"fieldId": "custentity_ssn", "value": …}, {"name": "password", "value": …}, the shape
// custom fields and form payloads take) is read like the field it names, wrapped: what
// the name or label member's string says is added to the context of its value members
// (valueCtx, which also decides when a label's value is a picklist option).
// Only those: the pair's other members (required, maxLength) describe the field. Members
// come in any order: the first value member looks ahead for names after it (namedAfter).
// A member whose name says it describes a credential (id, type, tokenUrl) inherits no
// secret from the names above it.
func (st *scanState) object(i, depth int, outer fieldCtx) (int, error) {
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
	var (
		ps          pairState // what the pair's name, label and input members said
		lookedAhead bool      // for names after the first value member
		aheadRead   int       // where the last name member it read has its value
	)
	// What wraps a secret is for the value member alone.
	const wraps = ctxSecretWrapper | ctxPassword
	wrapped := outer & wraps
	outer &^= wraps
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
		fc := memberCtx(info, outer)
		// A name, label or input member is read once scanned, with the findings of its
		// scan, unless a look-ahead read it already.
		nameAt := 0
		switch info.pair {
		case pairName, pairLabel, pairInput:
			if i+1 > aheadRead {
				nameAt = i + 1
			}
		case pairValue:
			if !lookedAhead {
				aheadRead = st.namedAfter(i+1, outer, &ps)
				lookedAhead = true
			}
			fc = st.valueCtx(i+1, fc, wrapped, &ps)
		}
		if i, err = st.value(i+1, depth, fc); err != nil {
			return i, err
		}
		if nameAt > 0 {
			switch at := skipSpace(b, nameAt); {
			case b[at] != '"':
			case info.pair == pairInput:
				ps.input, ps.inputCtx, ps.typed = st.lastString, fc, 0
			default:
				ps.read(info.pair, st.lastString, st.spans)
			}
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

// memberCtx is what a member's name (info) and the names above it (outer) say about its
// value, before any pair's name does.
func memberCtx(info keyInfo, outer fieldCtx) fieldCtx {
	fc := info.fc | outer
	if info.describes {
		fc &^= ctxNestedSecret
	}
	return fc
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
