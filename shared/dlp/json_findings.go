package dlp

import "strconv"

// The scanning half of the JSON walk: what a string, number or key holds, where it is
// (its path), and how a finding is recorded and rendered into the output document.

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
