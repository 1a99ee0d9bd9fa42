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
	// "Password", "value": …} is a picklist's option (HubSpot property options, Salesforce
	// picklist values) as often as a form's field (valueCtx).
	pairLabel
	// pairInput says what kind of input the field is ("type": "password", NetSuite's
	// "fieldType": "PASSWORD"): a form's field, not an option.
	pairInput
)

// pairState is what the name, label and input members of one object said about its value
// members.
type pairState struct {
	named    fieldCtx // what its name members said (pairNamed)
	labelled fieldCtx // what its label members said, the same way
	label    string   // the last label, which an option's value may repeat (optionValue)
	// input is the last input member's string, read (typedSecret) with inputCtx, its
	// member's context, only for a pair that a label alone names a secret.
	input    string
	inputCtx fieldCtx
	// typed caches typedSecret for input (0: not read yet, 1: no, 2: yes): it is asked per
	// value member, and a pair may repeat its value member, so reading the input again for
	// each made a scan quadratic in the input's length.
	typed int8
}

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
	// format is JSON Schema's ("format": "password"), widget a form builder's, htmltype
	// an HTML input's: each says what is typed in as type does.
	case "type", "inputtype", "fieldtype", "datatype", "controltype", "format", "widget", "htmltype":
		return pairInput
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

// read records what a pair's name or label member (role), whose string is s with the
// findings spans, says about the pair's value, read as a field name is. Like a key, it is
// read without its findings, which the output holds as placeholders: a rescan must read it
// alike.
func (ps *pairState) read(role pairRole, s string, spans []span) {
	if len(spans) > 0 {
		s = withoutFindings(s, spans)
	}
	// classifyKey, not the scanner's key cache: a pair's name is a value (a customer's name
	// as often as a field's), new in every record, and would only evict real keys.
	fc := classifyKey(s)
	switch role {
	case pairName:
		ps.named |= pairNamed(fc)
	case pairLabel:
		ps.label = s
		ps.labelled |= pairNamed(fc)
	}
}

// typedSecret reports whether the pair's input member says a secret is typed in: its
// string, read as read does a name, names a secret as a field name would ("password",
// "PASSWORD", "secret"), never a record ("authorization"). It is read here, not as the
// member is scanned: every field of a form or of a custom-field list has a type, and only
// a pair labelled with a secret's name asks.
func (ps *pairState) typedSecret() bool {
	if ps.typed == 0 {
		ps.typed = 1
		if ps.readTyped() {
			ps.typed = 2
		}
	}
	return ps.typed == 2
}

// maxInputType is the longest input member read as a type: a type is a word or two
// ("password", "passwordInput"), and a longer string is no form's type.
const maxInputType = 64

func (ps *pairState) readTyped() bool {
	if ps.input == "" || len(ps.input) > maxInputType {
		return false
	}
	s := ps.input
	var buf [4]span
	if spans := resolve(detect(s, ps.inputCtx, buf[:0])); len(spans) > 0 {
		s = withoutFindings(s, spans)
	}
	fc := classifyKey(s)
	return fc&ctxSecret != 0 && fc&ctxRecordName == 0
}

// valueCtx is what the pair members ps (and wrapped, what the object's own name said of
// its value member) add to fc for the value member whose value is at i.
//
// A name member (name, fieldId, scriptId, key) naming a secret, or a secret's name
// wrapping the object ({"adminPassword": {"label": …, "value": …}}), makes the value the
// secret whatever it says (pairSecret): such a name is a field's, never an option's, and
// "admin" for admin_password, "sftp" for custentity_sftp_password or "password" for
// password are the default credentials people leave in place.
//
// A label alone is weaker: {"label": "Password", "value": "PWD"} is a picklist option as
// often as a filled-in field, and neither the label nor the value tells them apart
// ("Expired", "basic" and "letmein" are all one plain word). So its value is reported
// only when it looks like a secret (secretShaped: "Password123!", "sk_test_abc123"),
// unless an input member says a secret is typed there ("type": "password"), and then it
// is the secret as under a name. Accepted limit: a plain password in a form that is
// labelled only ({"label": "Password", "value": "letmein"}, {"label": "Password",
// "value": "password"}) is given up, so that option lists can be written at all.
func (st *scanState) valueCtx(i int, fc, wrapped fieldCtx, ps *pairState) fieldCtx {
	const wraps = ctxSecretWrapper | ctxPassword
	fc |= (ps.named | ps.labelled) &^ wraps
	switch w := ps.named | wrapped; {
	case w&ctxSecretWrapper != 0:
		return fc | ctxPairSecret | w&ctxPassword
	case ps.labelled&ctxSecretWrapper == 0:
		return fc
	case ps.typedSecret():
		return fc | ctxPairSecret | ps.labelled&ctxPassword
	case st.optionValue(i, fc&^ctxNestedSecret, ps.label):
		return fc &^ ctxNestedSecret
	}
	return fc
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
// labelled with a secret's name (label), to be scanned with fc, is an option of a
// picklist rather than the secret: its words are the label's whole words ({"label":
// "Client Secret", "value": "client_secret"}, "PASSWORD" for "Password"), which say
// nothing the label does not, and it holds no finding of its own (the output would read
// otherwise). One word of the label is not enough: "admin" for "Admin password" is a
// default password, not an option. Names never make options (valueCtx).
func (st *scanState) optionValue(i int, fc fieldCtx, label string) bool {
	if label == "" {
		return false
	}
	v, ok := st.stringAt(i)
	if !ok || !sameWords(v, label) {
		return false
	}
	var buf [4]span
	return len(resolve(detect(v, fc, buf[:0]))) == 0
}

// sameWords reports whether v and label, read as words as a field name is, are the same
// words ("api_key" and "API Key"): v may differ in case and separators, not in anything
// else a password could add ("Password!" for "Password").
func sameWords(v, label string) bool {
	if len(v) > 64 || len(label) > 64 {
		return false // keyWords reads the last 64 bytes only
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != ' ' && c != '_' && c != '-' {
			return false
		}
	}
	var vw, lw keyWords
	vw.read(v)
	lw.read(label)
	return vw.words > 0 && bytes.Equal(vw.buf[:vw.n], lw.buf[:lw.n])
}

// lookAheadTokens is how many tokens of containers namedAfter skips at most, spaces not
// counted: a pair's value object ({"id": "4711", "refName": "Widget"}: 9 tokens) or a
// short list of them fits.
const lookAheadTokens = 64

// namedAfter records in ps what the name, label and input members after the value member
// whose value is at i say about it, for a pair whose value comes before them ([{"value":
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
// value of the last such member it read starts, or 0: the walk need not read those again.
func (st *scanState) namedAfter(i int, outer fieldCtx, ps *pairState) (read int) {
	b := st.doc
	budget := lookAheadTokens
	for {
		if i = skipAhead(b, skipSpace(b, i), &budget); i < 0 {
			return read
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			return read // the object's end, or a document the walk will refuse
		}
		i = skipSpace(b, i+1)
		if i >= len(b) || b[i] != '"' {
			return read
		}
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return read
		}
		info := st.scanner.keyInfo(st.decode(i, end, esc))
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return read
		}
		i++
		switch s, ok := st.stringAt(i); {
		case !ok:
		case info.pair == pairInput:
			ps.input, ps.inputCtx, ps.typed = s, memberCtx(info, outer), 0
			read = i
		case info.pair == pairName || info.pair == pairLabel:
			var buf [4]span
			ps.read(info.pair, s, resolve(detect(s, memberCtx(info, outer), buf[:0])))
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
