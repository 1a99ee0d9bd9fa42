package dlp

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// privateKeyAt examines the PEM armor at v[i]. A block without its END line (truncated by
// a log line limit, say) is still a key: the finding runs to the end of the string.
func privateKeyAt(v string, i int) (span, bool, int) {
	n := len(v)
	h := i + len("-----BEGIN ")
	e := strings.Index(v[h:min(n, h+64)], "-----")
	if e < 0 {
		return span{}, false, h
	}
	next := h + e + 5
	if !strings.Contains(v[h:h+e], "PRIVATE KEY") {
		return span{}, false, next
	}
	end := n
	if x := strings.Index(v[next:], "-----END "); x >= 0 {
		x += next + len("-----END ")
		if y := strings.Index(v[x:min(n, x+64)], "-----"); y >= 0 {
			end = x + y + 5
		}
	}
	return span{i, end, kindPrivateKey, 0.99}, true, end
}

// wordAt checks the shapes that a word's first letters announce.
func wordAt(v string, i, wordEnd int) (span, bool, int) {
	rest := v[i:]
	switch v[i] {
	case 'A':
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			if wordEnd-i == 20 && allUpperOrDigit(v[i+4:wordEnd]) {
				return span{i, wordEnd, kindAWSAccessKeyID, 0.95}, true, wordEnd
			}
		}
	case 'e':
		if strings.HasPrefix(rest, "eyJ") {
			return jwtAt(v, i)
		}
	case 'B', 'b':
		if wordEnd-i == 6 && hasPrefixFold(rest, "bearer") || wordEnd-i == 5 && hasPrefixFold(rest, "basic") {
			return authSchemeAt(v, i, wordEnd)
		}
	}
	for k := tokenShapeIndex[v[i]][0]; k < tokenShapeIndex[v[i]][1]; k++ {
		t := &tokenShapes[k]
		if strings.HasPrefix(rest, t.prefix) {
			return t.match(v, i)
		}
	}
	if isUpper(v[i]) && i+3 < len(v) && isUpper(v[i+1]) && isDigit(v[i+2]) && isDigit(v[i+3]) {
		return ibanAt(v, i, wordEnd)
	}
	return span{}, false, wordEnd
}

func allUpperOrDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isUpper(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// genericWordAt checks the shapes that no prefix announces, for words that start with a
// letter or a digit alike.
func genericWordAt(v string, i, wordEnd int, sc *scope) (span, bool, int) {
	// A 40-character base64 run is either one long word or continues past '/' or '+'.
	if wordEnd-i >= 40 || len(v)-i >= 40 && (v[wordEnd] == '/' || v[wordEnd] == '+') {
		if sp, ok, next := awsSecretAt(v, i, sc); ok {
			return sp, ok, next
		}
	}
	// Mailchimp: 32 hex digits, "-us", a datacenter number.
	if wordEnd-i == 32 && strings.HasPrefix(v[wordEnd:], "-us") && wordEnd+3 < len(v) && isDigit(v[wordEnd+3]) {
		for k := i; k < wordEnd; k++ {
			if !isHex(v[k]) {
				return span{}, false, wordEnd
			}
		}
		e := wordEnd + 3
		for e < len(v) && isDigit(v[e]) {
			e++
		}
		if e == len(v) || !isAlnum(v[e]) {
			return span{i, e, kindAPIKey, 0.85}, true, e
		}
	}
	return span{}, false, wordEnd
}

// awsSecretAt examines a run of exactly 40 base64 characters starting at v[i]. Random
// 40-character strings are everywhere (git SHAs, digests, ids), so it needs an AWS or
// secret context and the mixed character classes of a real key.
func awsSecretAt(v string, i int, sc *scope) (span, bool, int) {
	n := len(v)
	if gluedBefore(v, i) || i > 0 && isB64(v[i-1]) {
		return span{}, false, i + 1
	}
	j := i
	var upper, lower, digit, slash, hexOnly = false, false, false, false, true
	for j < n && j-i <= 40 && isB64(v[j]) {
		c := v[j]
		upper = upper || isUpper(c)
		lower = lower || isLower(c)
		digit = digit || isDigit(c) || c == '+' || c == '/'
		slash = slash || c == '+' || c == '/'
		hexOnly = hexOnly && isHex(c)
		j++
	}
	if j-i != 40 || j < n && (isB64(v[j]) || v[j] == '=') {
		return span{}, false, i + 1
	}
	if !upper || !lower || !digit || hexOnly {
		return span{}, false, j
	}
	conf := 0.9
	if sc.fc&ctxAWS == 0 {
		switch {
		case sc.keywordBefore(v, i, 80, awsWords):
			conf = 0.85
		case slash && isDigitAnywhere(v[i:j]):
			// Exactly 40 characters mixing upper, lower, digits and '/' or '+' is the
			// shape of an AWS secret key even in free text ("key wJalr…"); ids, digests
			// and SHAs never carry '/' or '+'.
			conf = 0.7
		default:
			return span{}, false, j
		}
	}
	return span{i, j, kindAWSSecretAccessKey, conf}, true, j
}

// jwtAt examines three base64url segments starting "eyJ" at v[i]. The header must decode
// to a JSON object with "alg"; that is what separates a JWT from any dotted identifier.
func jwtAt(v string, i int) (span, bool, int) {
	n := len(v)
	j := i
	var headerEnd int
	for seg := 0; seg < 3; seg++ {
		s := j
		for j < n && isB64URL(v[j]) {
			j++
		}
		if seg == 0 {
			headerEnd = j
		}
		if seg < 2 {
			if j-s < 2 || j >= n || v[j] != '.' {
				return span{}, false, j
			}
			j++
		}
	}
	for j < n && v[j] == '=' {
		j++
	}
	header := v[i:headerEnd]
	if len(header) < 10 || len(header) > 2048 {
		return span{}, false, j
	}
	var buf [1536]byte
	m, err := base64.RawURLEncoding.Decode(buf[:], []byte(header))
	if err != nil {
		return span{}, false, j
	}
	h := strings.TrimSpace(string(buf[:m]))
	if !strings.HasPrefix(h, "{") || !strings.Contains(h, `"alg"`) || !json.Valid([]byte(h)) {
		return span{}, false, j
	}
	return span{i, j, kindJWT, 0.95}, true, j
}

// ibanAt examines an IBAN starting with the country code at v[i], compact or printed in
// groups of four.
func ibanAt(v string, i, wordEnd int) (span, bool, int) {
	n := len(v)
	want := ibanLength(v[i], v[i+1])
	if want == 0 {
		return span{}, false, wordEnd
	}
	var buf [34]byte
	k, j := 0, i
	for j < n && k < want {
		c := v[j]
		if c == ' ' && k%4 == 0 && j+1 < n && isAlnum(v[j+1]) {
			j++
			continue
		}
		if !isAlnum(c) {
			break
		}
		if isLower(c) {
			c -= 'a' - 'A'
		}
		buf[k] = c
		k++
		j++
	}
	if k != want || j < n && isAlnum(v[j]) || !ibanValid(buf[:k]) {
		return span{}, false, wordEnd
	}
	return span{i, j, kindIBAN, 0.97}, true, j
}

// tokenShape is an API key or token announced by a fixed prefix.
type tokenShape struct {
	prefix  string
	minBody int // characters after the prefix
	maxBody int // 0: no limit
	body    func(byte) bool
}

func isAlnumOrUnderscore(c byte) bool { return isAlnum(c) || c == '_' }

func isAlnumOrDash(c byte) bool { return isAlnum(c) || c == '-' }

func isB64OrEq(c byte) bool { return isB64(c) || c == '=' }

func isB64URLOrDot(c byte) bool { return isB64URL(c) || c == '.' }

// tokenShapes is grouped by first byte (tokenShapeIndex relies on it).
var tokenShapes = [...]tokenShape{
	{"ghp_", 36, 0, isAlnum}, // GitHub
	{"gho_", 36, 0, isAlnum},
	{"ghu_", 36, 0, isAlnum},
	{"ghs_", 36, 0, isAlnum},
	{"ghr_", 36, 0, isAlnum},
	{"github_pat_", 22, 0, isAlnumOrUnderscore},
	{"glpat-", 20, 0, isB64URL},     // GitLab
	{"xoxb-", 10, 0, isAlnumOrDash}, // Slack
	{"xoxp-", 10, 0, isAlnumOrDash},
	{"xoxa-", 10, 0, isAlnumOrDash},
	{"xoxs-", 10, 0, isAlnumOrDash},
	{"xoxr-", 10, 0, isAlnumOrDash},
	{"xoxe-", 10, 0, isAlnumOrDash},
	{"sk_live_", 16, 0, isAlnum}, // Stripe
	{"sk_test_", 16, 0, isAlnum},
	{"sk-", 32, 0, isB64URL}, // OpenAI, Anthropic
	{ServiceTokenPrefix, 40 - len(ServiceTokenPrefix), 0, isB64URL},
	{"shpat_", 32, 32, isHex}, // Shopify
	{"shpss_", 32, 32, isHex},
	{"shpca_", 32, 32, isHex},
	{"shppa_", 32, 32, isHex},
	{"sq0atp-", 22, 0, isB64URL}, // Square
	{"sq0csp-", 40, 0, isB64URL},
	{"rk_live_", 16, 0, isAlnum}, // Stripe restricted keys
	{"rk_test_", 16, 0, isAlnum},
	{"whsec_", 24, 0, isB64OrEq},  // Stripe webhook secrets
	{"AIza", 35, 35, isB64URL},    // Google
	{"npm_", 36, 36, isAlnum},     // npm
	{"SG.", 60, 0, isB64URLOrDot}, // SendGrid
}

// tokenShapeIndex maps a first byte to the range of tokenShapes starting with it, so a
// word pays for the prefixes of its own letter only.
var tokenShapeIndex = func() (idx [256][2]uint8) {
	for k, t := range tokenShapes {
		c := t.prefix[0]
		if idx[c][1] == 0 {
			idx[c][0] = uint8(k)
		}
		idx[c][1] = uint8(k + 1)
	}
	return idx
}()

func (t *tokenShape) match(v string, i int) (span, bool, int) {
	n := len(v)
	s := i + len(t.prefix)
	j := s
	var digit, upper, lower bool
	for j < n && t.body(v[j]) {
		digit = digit || isDigit(v[j])
		upper = upper || isUpper(v[j])
		lower = lower || isLower(v[j])
		j++
	}
	body := j - s
	// A key ends at a word boundary; "shpat_<32 hex>g…" is some longer identifier.
	if body < t.minBody || t.maxBody > 0 && body > t.maxBody || j < n && isAlnum(v[j]) {
		return span{}, false, j
	}
	// Generated keys mix character classes; "sat_delivery_window_configuration" does not.
	if !digit && !(upper && lower) {
		return span{}, false, j
	}
	return span{i, j, kindAPIKey, 0.95}, true, j
}

func isDigitAnywhere(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}
