package dlp

import (
	"bytes"
	"strings"
)

// Name/value pairs and wrapped secrets: the part a member plays in a pair, what the pair's
// name says about its value, and when a wrapped secret's value member is the secret.

// pairRole is the part a member plays in a name/value pair: [{"fieldId": "custentity_ssn",
// "value": "…"}], {"name": "password", "value": "…"}, {"Key": …, "Value": …}.
type pairRole uint8

const (
	pairNone  pairRole = iota
	pairName           // its string names the pair's field: name, fieldId, scriptId, key
	pairValue          // it holds the named field's value: value, values, val
	// pairLabel names the field as a person reads it, as pairName does, though {"label":
	// "Password", "value": …} is a picklist's option as often as the field (optionValue).
	pairLabel
)

// pairNames are the strings of a pair's name and label members, which an option's value
// repeats (optionValue).
type pairNames struct{ name, label string }

// pairRoleOf reads a member's name as words, as classifyKey does. Names are whole-name
// matches, so "fileName" or "keyCode" name no pair's field, and "picklistValues" or
// "defaultValue" hold no pair's value: in a Salesforce describe they sit beside the
// field's "label" and describe the field (its options, its default), they are not it.
func pairRoleOf(key string) pairRole {
	var kw keyWords
	kw.read(key)
	if kw.words == 0 {
		return pairNone
	}
	switch string(kw.buf[:kw.n]) {
	case "name", "fieldid", "field", "fieldname", "fieldkey", "scriptid", "key",
		"attribute", "attributename", "property", "propertyname", "parameter", "parametername":
		return pairName
	case "label":
		return pairLabel
	case "val", "value", "values":
		return pairValue
	}
	return pairNone
}

// pairNamed is what the name member of a name/value pair passes to the pair's value: as
// an object's name does (inherited), except that "authorization" is a header's name
// there ([{"name": "Authorization", "value": "Bearer …"}]), not a record's.
func pairNamed(fc fieldCtx) fieldCtx {
	return inherited(fc&^ctxRecordName) | wrapper(fc&^ctxRecordName)
}

// wrapper is what a secret's name (not a record's) says about the object it names: its
// value member is the secret itself ({"password": {"value": "letmein"}}: ctxPairSecret),
// where its other members only sit under the name (ctxNestedSecret). An object held by a
// value member wraps the secret too ({"password": {"values": [{"value": "letmein"}]}}):
// a chain of value members holds the value all along, whatever the nesting; a member
// beside one (meta, id) starts no such chain.
func wrapper(fc fieldCtx) fieldCtx {
	if fc&ctxSecret != 0 && fc&ctxRecordName == 0 || fc&ctxPairSecret != 0 {
		return ctxSecretWrapper | fc&ctxPassword
	}
	return 0
}

// pairSecret reports whether v, the value member of a wrapped secret (fc), is the secret:
// what secretValue accepts (after an auth scheme), unless it is a setting word. Not a
// description: "description", "label" and "help" are members of their own beside the
// value, never its value member, so the value member is the secret however short. Its
// words decide by the kind of secret. A password's are the password: people choose
// passphrases ("correct horse battery staple"), and a bare password field is masked
// whatever its words too, so wrapping it must not unmask it. A key's, token's, secret's or
// credentials' are not: those are issued by machines as one token (base64, hex, a
// prefix), so words there can only describe the setting ("managed by IT" under
// "credentials", "rotated every 90 days" under "apiKey").
func pairSecret(v string, fc fieldCtx) bool {
	v = strings.TrimSpace(v[authSchemeLen(v):])
	if fc&ctxPassword == 0 && strings.ContainsAny(v, " \t\r\n") {
		return false
	}
	return !settingWord(v) && secretValue(v)
}

// settingWord reports what a credential's settings say of it ({"apiKey": {"value":
// "enabled"}}), never a secret of its own; secretValue refuses the flags and placeholders
// (true, none, n/a). A number there is an option's code (a short number is not scanned as
// one: scanNumber).
func settingWord(v string) bool {
	for _, w := range [...]string{"enabled", "disabled", "active", "inactive", "on", "off", "tbd", "default"} {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// namedBy is what a pair's name or label member (role), whose string is s with the
// findings spans, says about the pair's value, read as a field name is; s as read is kept
// in names. Like a key, it is read without its findings, which the output holds as
// placeholders: a rescan must read it alike.
func namedBy(role pairRole, s string, spans []span, names *pairNames) fieldCtx {
	if len(spans) > 0 {
		s = withoutFindings(s, spans)
	}
	if role == pairLabel {
		names.label = s
	} else {
		names.name = s
	}
	// classifyKey, not the scanner's key cache: a pair's name is a value (a customer's name
	// as often as a field's), new in every record, and would only evict real keys.
	return pairNamed(classifyKey(s))
}

// stringAt returns the string at i (after spaces), decoded, if there is one.
func (st *scanState) stringAt(i int) (string, bool) {
	b := st.doc
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return "", false
	}
	end, esc, err := stringEnd(b, i)
	if err != nil {
		return "", false // value reports the error
	}
	return st.decode(i, end, esc), true
}

// optionValue reports whether the string at i (after spaces), the value member of a pair
// naming a secret, to be scanned with fc, is an option of a picklist rather than the
// secret. It assumes an option's value is its label itself, a code or a number, where a
// filled-in form field's is free text. A number is not read as a pair's secret
// (scanNumber), and a value made of the pair's own label or name, or one of its words
// ({"label": "Password", "value": "PASSWORD"}, {"label": "Reset password", "value":
// "reset"}), says nothing its label does not: neither is a secret. A code that is more
// than that ("PWD", "Portal_Password__c") has a password's shape and is masked: an option
// masked costs a model a word, a password let through is the password. A wrapper named by
// its key ({"password": {"value": "password"}}) has no option's shape, and its value is
// the secret whatever it says. An option holds no finding of its own either: the output
// would read otherwise.
func (st *scanState) optionValue(i int, fc fieldCtx, names *pairNames) bool {
	if names.name == "" && names.label == "" {
		return false
	}
	v, ok := st.stringAt(i)
	if !ok || !ownWords(v, names.name) && !ownWords(v, names.label) {
		return false
	}
	var buf [4]span
	return len(resolve(detect(v, fc, buf[:0]))) == 0
}

// ownWords reports whether v, read as words as a field name is, is name's words or one
// of them ("api_key" for "API Key", "reset" for "Reset password").
func ownWords(v, name string) bool {
	if name == "" || len(v) > 64 {
		return false
	}
	var vw, nw keyWords
	vw.read(v)
	nw.read(name)
	if vw.words == 0 {
		return false
	}
	val := vw.buf[:vw.n]
	if bytes.Equal(val, nw.buf[:nw.n]) {
		return true
	}
	for w := 0; w < nw.words; w++ {
		end := nw.n
		if w+1 < nw.words {
			end = nw.starts[w+1]
		}
		if bytes.Equal(val, nw.buf[nw.starts[w]:end]) {
			return true
		}
	}
	return false
}

// lookAheadTokens is how many tokens of containers namedAfter skips at most, spaces not
// counted: a pair's value object ({"id": "4711", "refName": "Widget"}: 9 tokens) or a
// short list of them fits.
const lookAheadTokens = 64

// namedAfter is what the name and label members after the value member whose value is at
// i say about it, for a pair whose value comes before its name or label ([{"value":
// "letmein", "name": "password"}]): JSON member order is no one's promise, and an object
// is not buffered to walk it twice. The look-ahead only reads: the walk validates and
// scans each member when it gets there. The object's own keys, strings and numbers it
// skips whole, read by this object's one look-ahead only; containers among its values
// (the value's own {"id": …}) only within lookAheadTokens tokens in all, beyond which it
// gives up. So a byte is read by the look-aheads of at most that many enclosing objects
// (each must pass the tokens that open the containers between them), and the scan stays
// linear on nested value-first objects. Tokens, not bytes: a rescan of the output, whose
// masked values are placeholders of other lengths, must decide as the scan did. Spaces
// are no tokens: masking never changes them, and a document pretty-printed
// (JSON.stringify(x, null, 2)) must decide as its compact form does. read is where the
// value of the last name or label member it read starts, or 0: the walk need not read
// those again.
func (st *scanState) namedAfter(i int, outer fieldCtx, names *pairNames) (fc fieldCtx, read int) {
	b := st.doc
	budget := lookAheadTokens
	for {
		if i = skipAhead(b, skipSpace(b, i), &budget); i < 0 {
			return fc, read
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			return fc, read // the object's end, or a document the walk will refuse
		}
		i = skipSpace(b, i+1)
		if i >= len(b) || b[i] != '"' {
			return fc, read
		}
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return fc, read
		}
		info := st.scanner.keyInfo(st.decode(i, end, esc))
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return fc, read
		}
		i++
		if s, ok := st.stringAt(i); ok && (info.pair == pairName || info.pair == pairLabel) {
			var buf [4]span
			fc |= namedBy(info.pair, s, resolve(detect(s, memberCtx(info, outer), buf[:0])), names)
			read = i
		}
	}
}

// skipAhead returns where the value at i ends, or -1: past the document's end, or a
// container of more tokens than are left in budget (which it spends). A token is a
// string, a number or literal or one other byte, not a run of spaces: a masked value is
// one token as it was, a string placeholder as a number or a string, and its spaces stay.
func skipAhead(b []byte, i int, budget *int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
	default:
		return literalEnd(b, i)
	}
	for depth := 0; i < len(b); {
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		if *budget--; *budget < 0 {
			return -1
		}
		switch b[i] {
		case '"':
			if i = skipString(b, i); i < 0 {
				return -1
			}
		case '{', '[':
			depth++
			i++
		case '}', ']':
			i++
			if depth--; depth == 0 {
				return i
			}
		case ',', ':':
			i++
		default:
			i = literalEnd(b, i)
		}
	}
	return -1
}

// skipString returns where the string at i ends, or -1 when the document does first.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		}
	}
	return -1
}

// literalEnd returns where the number or literal at i ends (at least one byte on).
func literalEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
			return i
		}
	}
	return i
}
