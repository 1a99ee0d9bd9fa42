package dlp

import (
	"encoding/base64"
	"strings"
)

// emailAt examines the address around the '@' at v[at].
func emailAt(v string, at int) (span, bool, int) {
	n := len(v)
	j := at
	for j > 0 && isEmailLocal(v[j-1]) {
		if at-j == 64 { // longer than RFC 5321 allows: not an address
			return span{}, false, at + 1
		}
		j--
	}
	for j < at && v[j] == '.' {
		j++
	}
	// The user of scheme://user@host is a login name, not an address.
	if j == at || v[at-1] == '.' || j >= 3 && v[j-3:j] == "://" {
		return span{}, false, at + 1
	}
	k := at + 1
	for k < n && k-at <= 255 && (isAlnum(v[k]) || v[k] == '.' || v[k] == '-') {
		k++
	}
	for k > at+1 && (v[k-1] == '.' || v[k-1] == '-') {
		k--
	}
	if !emailDomain(v[at+1 : k]) {
		return span{}, false, at + 1 // what follows may hold something else: "phone 0301234@0301235"
	}
	return span{j, k, kindEmail, 0.95}, true, k
}

func isEmailLocal(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

func emailDomain(d string) bool {
	labels := 0
	for len(d) > 0 {
		dot := strings.IndexByte(d, '.')
		label := d
		if dot >= 0 {
			label, d = d[:dot], d[dot+1:]
		} else {
			d = ""
		}
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		labels++
		if dot < 0 { // the TLD: letters only, and not a file extension ("logo@2x.png")
			if labels < 2 || len(label) < 2 || len(label) > 24 {
				return false
			}
			for i := 0; i < len(label); i++ {
				if !isLetter(label[i]) {
					return false
				}
			}
			switch strings.ToLower(label) {
			case "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "pdf", "css", "js":
				return false
			}
		}
	}
	return labels >= 2
}

// urlPasswordAt examines the userinfo after the "://" at v[i].
func urlPasswordAt(v string, i int) (span, bool, int) {
	n := len(v)
	s := i
	for s > 0 && (isAlnum(v[s-1]) || v[s-1] == '+' || v[s-1] == '.' || v[s-1] == '-') {
		s--
	}
	if s == i || !isLetter(v[s]) {
		return span{}, false, i + 3
	}
	p := i + 3
	at, colon := -1, -1
	q := p
	for ; q < n && q-p < 512; q++ {
		c := v[q]
		if c == '/' || c == '?' || c == '#' || c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' {
			break
		}
		// A placeholder stands for text an earlier scan found, which may have held a
		// character that ends the userinfo ("A://key:#00&@" masks to
		// "A://key:[PASSWORD_FIELD_1]&@"): the userinfo ends there too, so a second scan
		// reads it as the first did. (Its ':' is no user:password separator either.)
		if c == '[' && placeholderLen(v[q:]) > 0 {
			break
		}
		if c == '@' {
			at = q // the last '@' ends the userinfo, as in browsers: passwords may hold '@'
		}
		if c == ':' && colon < 0 {
			colon = q
		}
	}
	if at < 0 || colon < 0 || colon > at {
		return span{}, false, p
	}
	pw := v[colon+1 : at]
	if pw == "" || !secretValue(pw) {
		return span{}, false, at + 1
	}
	// A user part that holds an '@' ("A://ops@x.example:pw@host") is read on by the other
	// detectors from there: a second scan, whose userinfo ends at the password's
	// placeholder, reads it so, and must find what the first scan masked.
	if k := strings.IndexByte(v[p:colon], '@'); k >= 0 {
		return span{colon + 1, at, kindURLPassword, 0.95}, true, p + k
	}
	return span{colon + 1, at, kindURLPassword, 0.95}, true, at + 1
}

// assignmentAt examines "name=value" and "name: value" at the '=' or ':' at v[i], where
// name is a secret-like field name: connection strings, query strings, env files, headers
// and JSON embedded in an error message.
func assignmentAt(v string, i int, sc *scope) (span, bool, int) {
	n := len(v)
	e := i
	for e > 0 && i-e < 3 && v[e-1] == ' ' {
		e--
	}
	if e > 0 && (v[e-1] == '"' || v[e-1] == '\'') {
		e--
	}
	s := e
	for s > 0 && e-s < 64 && (isAlnum(v[s-1]) || v[s-1] == '_' || v[s-1] == '-' || v[s-1] == '.') {
		s--
	}
	// arn:aws:secretsmanager:…:secret:name is a path, not "secret: name".
	if e-s < 3 || s > 0 && v[s-1] == ':' {
		return span{}, false, i + 1
	}
	fc := classifyKey(v[s:e])
	if fc&ctxSecret == 0 {
		return span{}, false, i + 1
	}
	j := i + 1
	if j < n && (v[i] == ':' && v[j] == '=' || v[i] == '=' && v[j] == '>') {
		j++
	}
	spaces := 0
	for j < n && (v[j] == ' ' || v[j] == '\t') && spaces < 3 {
		j++
		spaces++
	}
	var quote byte
	if j < n && (v[j] == '"' || v[j] == '\'') {
		quote = v[j]
		j++
	}
	if placeholderLen(v[j:]) > 0 { // already anonymized or redacted
		return span{}, false, j
	}
	vs := j
	for j < n {
		c := v[j]
		if quote != 0 {
			if c == quote || c == '\n' {
				break
			}
		} else if c <= ' ' || c == ';' || c == ',' || c == '&' || c == '"' || c == '\'' ||
			c == ')' || c == '}' || c == ']' || c == '<' || c == '>' {
			break
		}
		j++
	}
	val := v[vs:j]
	switch strings.ToLower(val) {
	case "bearer", "basic", "token", "digest", "negotiate":
		return span{}, false, i + 1 // the scheme of an Authorization value; its token follows
	}
	// A rejected value is skipped, not re-read from each '=' inside it: that keeps
	// "pwd=pwd=pwd=…" linear. "Password: Expired" in prose is not a password: after ": " an
	// unquoted value must look like one.
	if len(val) < 3 || !secretValue(val) || v[i] == ':' && quote == 0 && spaces > 0 && !looksSecret(val) {
		return span{}, false, j
	}
	if isLetter(v[vs]) || v[vs] == '/' || v[vs] == '+' { // a value of a known shape keeps its own type
		we := vs
		for we < j && isAlnum(v[we]) {
			we++
		}
		sp, ok, _ := wordAt(v, vs, we)
		if !ok {
			sp, ok, _ = genericWordAt(v, vs, we, &scope{fc: fc, prior: sc.prior})
		}
		// X-Amz-Credential=AKIA…/20261122/us-east-1/s3/aws4_request: the key is the
		// secret, the scope after it is not.
		if ok && sp.start == vs {
			return sp, true, sp.end // the rest of the value is scanned like any text
		}
	}
	return span{vs, j, kindPasswordField, 0.8}, true, j
}

func looksSecret(s string) bool {
	if len(s) < 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; isDigit(c) || !isLetter(c) || i > 0 && isUpper(c) {
			return true
		}
	}
	return false
}

// authSchemeAt examines "Bearer <token>" and "Basic <base64 of user:password>".
func authSchemeAt(v string, i, wordEnd int) (span, bool, int) {
	n := len(v)
	j := wordEnd
	spaces := 0
	for j < n && v[j] == ' ' && spaces < 3 {
		j++
		spaces++
	}
	if spaces == 0 {
		return span{}, false, wordEnd
	}
	ts := j
	bearer := wordEnd-i == 6
	for j < n && (isAlnum(v[j]) || v[j] == '+' || v[j] == '/' ||
		bearer && (v[j] == '-' || v[j] == '.' || v[j] == '_' || v[j] == '~')) {
		j++
	}
	for j < n && v[j] == '=' {
		j++
	}
	token := v[ts:j]
	if bearer {
		if len(token) < 16 || !strings.ContainsAny(token, "0123456789") || !hasLetter(token) {
			return span{}, false, j
		}
		if sp, ok, _ := jwtAt(v, ts); ok && sp.end == j {
			return sp, true, j
		}
		return span{ts, j, kindBearerToken, 0.9}, true, j
	}
	if len(token) < 8 {
		return span{}, false, j
	}
	var buf [768]byte
	if len(token) > 1024 {
		return span{}, false, j
	}
	m, err := base64.StdEncoding.Decode(buf[:], []byte(token))
	if err != nil || !strings.Contains(string(buf[:m]), ":") {
		return span{}, false, j
	}
	for _, c := range buf[:m] {
		if c < 0x20 || c > 0x7e {
			return span{}, false, j
		}
	}
	return span{ts, j, kindPasswordField, 0.85}, true, j
}

// authSchemeLen returns the length of an HTTP authentication scheme and its spaces at the
// start of v ("Bearer ", "Basic "), or 0.
func authSchemeLen(v string) int {
	for _, scheme := range [...]string{"bearer", "basic", "token", "digest"} {
		if hasPrefixFold(v, scheme) && len(v) > len(scheme)+1 && v[len(scheme)] == ' ' {
			j := len(scheme)
			for j < len(v) && v[j] == ' ' {
				j++
			}
			if j < len(v) {
				return j
			}
		}
	}
	return 0
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}
