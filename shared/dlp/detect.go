package dlp

import "strings"

// The detectors are hand-written scanners rather than regular expressions: one pass over
// each string, dispatching on the first byte of each word, so a clean string costs a byte
// loop and a few comparisons per word. Every detector returns where scanning may resume,
// always past what it examined, which keeps the whole scan linear even on hostile input
// (no detector re-reads an unbounded stretch it already rejected).

const (
	clsDigit uint8 = 1 << iota
	clsUpper
	clsLower
	clsHex
	clsB64Extra    // '+' '/'
	clsB64URLExtra // '-' '_'
)

// charClass replaces chains of comparisons in the per-byte loops with one load.
var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= '0' && c <= '9':
			t[c] = clsDigit | clsHex
		case c >= 'A' && c <= 'Z':
			t[c] = clsUpper
		case c >= 'a' && c <= 'z':
			t[c] = clsLower
		case c == '+' || c == '/':
			t[c] = clsB64Extra
		case c == '-' || c == '_':
			t[c] = clsB64URLExtra
		}
		if c|0x20 >= 'a' && c|0x20 <= 'f' {
			t[c] |= clsHex
		}
	}
	return t
}()

// inert marks the bytes detect steps over: not a letter or a digit (a word or a number
// starts there) and not one of the bytes its other detectors start at ("@", "://", ":",
// "=", "-----BEGIN ", "+", "(", "/").
var inert = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = charClass[c]&(clsDigit|clsUpper|clsLower) == 0 && !strings.ContainsRune("@:=-+(/", rune(c))
	}
	return t
}()

func isDigit(c byte) bool { return charClass[c]&clsDigit != 0 }

func isLetter(c byte) bool { return charClass[c]&(clsUpper|clsLower) != 0 }

func isAlnum(c byte) bool { return charClass[c]&(clsDigit|clsUpper|clsLower) != 0 }

func isUpper(c byte) bool { return charClass[c]&clsUpper != 0 }

func isLower(c byte) bool { return charClass[c]&clsLower != 0 }

func isHex(c byte) bool { return charClass[c]&clsHex != 0 }

func isB64(c byte) bool { return charClass[c]&(clsDigit|clsUpper|clsLower|clsB64Extra) != 0 }

func isB64URL(c byte) bool { return charClass[c]&(clsDigit|clsUpper|clsLower|clsB64URLExtra) != 0 }

// detect appends the findings in v to out. fc is what the field name says about v.
func detect(v string, fc fieldCtx, out []span) []span {
	if fc&ctxSecret != 0 {
		// "Authorization": "Bearer abc…": the scheme is not the secret, and keeping it lets
		// a model still see what kind of credential was there.
		if start := authSchemeLen(v); secretValue(v[start:]) {
			out = append(out, span{start, len(v), kindPasswordField, 0.9})
		}
	} else if fc&ctxPairSecret != 0 && pairSecret(v, fc) {
		// The value member of a wrapped secret: the secret itself, by pairSecret's rule.
		out = append(out, span{authSchemeLen(v), len(v), kindPasswordField, 0.8})
	} else if fc&ctxNestedSecret != 0 && secretShaped(v) {
		// Under a secret's name but not its value: reported only when it looks like one.
		out = append(out, span{authSchemeLen(v), len(v), kindPasswordField, 0.7})
	}
	sc := scope{fc: fc}
	n := len(v)
	for i := 0; i < n; {
		// Spaces, punctuation and non-ASCII bytes start no detector and end no word: the
		// switch below would do nothing with them but move on by one.
		for inert[v[i]] {
			if i++; i == n {
				return out
			}
		}
		sc.prior = out
		c := v[i]
		var sp span
		var found bool
		var next int
		switch {
		case isAlnum(c):
			wordEnd := i + 1
			for wordEnd < n && isAlnum(v[wordEnd]) {
				wordEnd++
			}
			if isDigit(c) {
				sp, found, next = digitsAt(v, i, &sc)
			} else {
				sp, found, next = wordAt(v, i, wordEnd)
			}
			if !found {
				var n2 int
				sp, found, n2 = genericWordAt(v, i, wordEnd, &sc)
				next = max(next, n2, wordEnd)
			}
		case c == '@':
			sp, found, next = emailAt(v, i)
		case c == ':' && strings.HasPrefix(v[i:], "://"):
			sp, found, next = urlPasswordAt(v, i)
		case c == ':' || c == '=':
			sp, found, next = assignmentAt(v, i, &sc)
		case c == '-' && strings.HasPrefix(v[i:], "-----BEGIN "):
			sp, found, next = privateKeyAt(v, i)
		case c == '+' || c == '(':
			sp, found, next = phoneAt(v, i, &sc)
			if !found && c == '+' {
				sp, found, next = awsSecretAt(v, i, &sc)
			}
		case c == '/':
			sp, found, next = awsSecretAt(v, i, &sc)
		}
		if found {
			out = append(out, sp)
		}
		if next <= i {
			next = i + 1
		}
		// Resume at a word start, never inside a word a detector stopped in.
		for next < n && next > 0 && isAlnum(v[next]) && isAlnum(v[next-1]) {
			next++
		}
		i = next
	}
	return out
}

// gluedBefore reports whether v[i] continues the word before it. A placeholder's closing
// ']' counts as part of a word: the value it replaced did, and a second scan must see the
// same boundaries as the first.
func gluedBefore(v string, i int) bool {
	return i > 0 && (isAlnum(v[i-1]) || v[i-1] == ']')
}

// resolve sorts spans and merges overlapping ones into their union, typed by the more
// specific detector: a JWT inside an Authorization field is one finding, a jwt, and its
// replacement covers all of what either detector matched. A type that blocks connector
// writes always wins over one that does not, so "credentials": "jane@example.com:hunter22"
// stays a password and cannot pass as an email.
func resolve(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	for i := 1; i < len(spans); i++ { // insertion sort: a string rarely holds more than a few
		for j := i; j > 0 && (spans[j].start < spans[j-1].start ||
			spans[j].start == spans[j-1].start && spans[j].end > spans[j-1].end); j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	res := spans[:1]
	for _, s := range spans[1:] {
		last := &res[len(res)-1]
		if s.start >= last.end {
			res = append(res, s)
			continue
		}
		last.end = max(last.end, s.end)
		if outranks(s.kind, last.kind) {
			last.kind, last.conf = s.kind, s.conf
		}
	}
	return res
}

func outranks(a, b kind) bool {
	if kinds[a].blocksConnectorWrite != kinds[b].blocksConnectorWrite {
		return kinds[a].blocksConnectorWrite
	}
	return kinds[a].priority > kinds[b].priority
}

// scope is what the detectors know about the string they scan: its field name, and the
// findings made in it so far.
type scope struct {
	fc    fieldCtx
	prior []span
}

// keywordBefore reports whether one of words (lower-case) starts a word within window bytes
// before v[i]. Bytes of earlier findings and of placeholders do not count, neither as
// keywords nor towards the window: a second scan of an anonymized text, where "[PHONE_1]"
// stands for "+49 30 901820", must see the same context as the first ("mobile
// +49 30 901820 0301234567" must not turn the id into a phone once the phone is gone).
func (sc *scope) keywordBefore(v string, i, window int, words []string) bool {
	budget := window
	k := len(sc.prior) - 1
	for p := i - 1; p >= 0 && budget > 0; p-- {
		if s := sc.regionEndingAt(v, p, &k); s >= 0 {
			p = s
			continue
		}
		budget--
		if !isLetter(v[p]) || p > 0 && isLetter(v[p-1]) {
			continue
		}
		for _, w := range words {
			if hasPrefixFold(v[p:], w) {
				return true
			}
		}
	}
	return false
}

// regionEndingAt returns the start of the earlier finding or placeholder whose last byte is
// v[p], or -1. Findings are appended in scan order, so their ends ascend: *k walks down
// them as p does, and a text with thousands of findings costs no more than one with four.
func (sc *scope) regionEndingAt(v string, p int, k *int) int {
	for *k >= 0 && sc.prior[*k].end > p+1 {
		*k--
	}
	if *k >= 0 {
		if s := sc.prior[*k]; s.end == p+1 && s.start <= p {
			return s.start
		}
	}
	if v[p] != ']' {
		return -1
	}
	for q := p - 1; q >= 0 && p-q < 40; q-- {
		switch c := v[q]; {
		case c == '[':
			if placeholderLen(v[q:]) == p-q+1 {
				return q
			}
			return -1
		case c != ':' && c != '_' && !isUpper(c) && !isDigit(c):
			return -1
		}
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

var (
	phoneWords = []string{"tel", "phone", "fax", "mobile", "cell", "call", "telefon", "whatsapp", "sms", "dial"}
	ssnWords   = []string{"ssn", "social security", "soc sec", "ss#", "ss no"}
	cardWords  = []string{"card", "visa", "mastercard", "amex", "credit", "cc", "pan", "kreditkarte", "carte"}
	awsWords   = []string{"aws", "secret"}
)
