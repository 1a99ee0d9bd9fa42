package dlp

import "strings"

// fieldCtx is what a field name says about its value.
type fieldCtx uint16

const (
	ctxSecret  fieldCtx = 1 << iota // the whole value is a secret (password, client_secret, api_key...)
	ctxAWS                          // names an AWS credential: a 40-character secret needs no other context
	ctxPhone                        // names a phone number: phone, faxNumber, mobile...
	ctxSSN                          // ssn, social security number
	ctxCard                         // card, pan, cc: 13/14/18-digit numbers that are also GS1 codes count as cards
	ctxNotCard                      // gtin, ean, tracking...: Luhn-valid digits there are not cards
	// ctxNestedSecret: the value sits under a secret's name without being its value (in an
	// object under it, or the value of a name/value pair naming it), so it is reported
	// only when it looks like a secret (secretShaped): such objects hold ids, statuses,
	// URLs and settings as often as the secret.
	ctxNestedSecret
	// ctxRecordName: a secret name that, naming an object, names a record, not a
	// credential ("authorization": a payment's or NetSuite's return authorization);
	// nothing under it inherits the secret.
	ctxRecordName
	// ctxSecretWrapper: the object is the direct value of a secret's name or of a wrapped
	// secret's value member, or the name member of its pair names one; its value member
	// (value, values, val) is read with ctxPairSecret. Never passed further down.
	ctxSecretWrapper
	// ctxPairSecret: the value member of a wrapped secret ({"password": {"value": …}},
	// [{"name": "password", "value": …}]), a secret however short or plain (pairSecret).
	ctxPairSecret
	// ctxPassword: the secret is a password (password, passwd, passphrase, pwd), which a
	// person chooses and may make of words; it goes with ctxSecret, and with
	// ctxSecretWrapper and ctxPairSecret to a wrapped one's value member (pairSecret).
	ctxPassword
)

// keyWords is a field name read as words: its letters and digits, lower-cased, separators
// dropped, and where each of its last 16 words starts.
type keyWords struct {
	buf      [64]byte
	starts   [16]int
	n, words int
}

// read reads key's last 64 bytes as words ("clientSecret", "client_secret",
// "X-Client-Secret" are all [client secret]).
func (kw *keyWords) read(key string) {
	if strings.IndexByte(key, '[') >= 0 {
		key = withoutPlaceholders(key) // "[REDACTED:API_KEY]" names no field
	}
	if len(key) > 64 {
		key = key[len(key)-64:]
	}
	var prev byte    // class of the previous byte: 0 other, 'l' lower, 'u' upper, 'd' digit
	letters := false // the current word has a letter
	for i := 0; i < len(key); i++ {
		c := key[i]
		var cls byte
		switch {
		case c >= 'a' && c <= 'z':
			cls = 'l'
		case c >= 'A' && c <= 'Z':
			cls = 'u'
		case c >= '0' && c <= '9':
			cls = 'd'
		}
		if cls == 0 {
			prev = 0
			continue
		}
		// A word starts after a separator, at a lower→Upper step (clientSecret) and at the
		// last capital of a run followed by a lower-case letter (APIKey → API Key). Digits
		// stay with the word before them (cvv2, address2; user2Password is [user2
		// password]), and a word that starts with digits keeps the letters after them: a
		// name such as "1Password" or "3DSecure" is a brand, one word as "1password" is,
		// not a password or a secret.
		newWord := prev == 0 ||
			(cls == 'u' && (prev == 'l' || prev == 'd' && letters)) ||
			(cls == 'u' && prev == 'u' && i+1 < len(key) && key[i+1] >= 'a' && key[i+1] <= 'z')
		if newWord {
			letters = false
			if kw.words == len(kw.starts) {
				copy(kw.starts[:], kw.starts[1:])
				kw.words--
			}
			kw.starts[kw.words] = kw.n
			kw.words++
		}
		if cls == 'u' {
			c += 'a' - 'A'
		}
		letters = letters || cls != 'd'
		kw.buf[kw.n] = c
		kw.n++
		prev = cls
	}
}

// classifyKey reads a field name as words ("clientSecret", "client_secret", "X-Client-Secret"
// are all [client secret]) and judges it by its last words, the noun of an English compound
// name. That is what separates "apiKey" from "idempotencyKey", "primaryKey", "keyCode" and
// "tokenCount": a rule on substrings such as "key" or "token" cannot.
func classifyKey(key string) fieldCtx {
	var kw keyWords
	kw.read(key)
	if kw.words == 0 {
		return 0
	}
	n, words, starts := kw.n, kw.words, &kw.starts
	name := kw.buf[:n]
	end := func(w int) int { // the end of word w in name
		if w+1 < words {
			return starts[w+1]
		}
		return n
	}
	last := func(k int) string { // the last k words, joined
		if k > words {
			return ""
		}
		return string(name[starts[words-k]:])
	}

	var fc fieldCtx
	last1 := name[starts[words-1]:]
	for len(last1) > 1 && isDigit(last1[len(last1)-1]) { // password2, cvv2 → password, cvv
		last1 = last1[:len(last1)-1]
	}
	switch string(last1) {
	case "authorization":
		fc |= ctxSecret | ctxRecordName
	case "password", "passwd", "passphrase", "pwd":
		fc |= ctxSecret | ctxPassword
	case "secret", "secrets", "credential",
		"credentials", "apikey", "apisecret", "privatekey", "secretkey",
		"accesstoken", "refreshtoken", "authtoken", "apitoken", "sessiontoken", "bearertoken",
		"clientsecret", "cvv", "cvc":
		fc |= ctxSecret
	}
	switch last(2) {
	case "apikey", "privatekey", "secretkey", "accesstoken", "refreshtoken", "authtoken",
		"apitoken", "sessiontoken", "bearertoken", "idtoken", "signingkey", "encryptionkey",
		"securitytoken", "securitycode":
		fc |= ctxSecret
	}
	switch last(2) {
	case "secretkey", "accesskey":
		fc |= ctxAWS
	}
	if last(3) == "secretaccesskey" {
		fc |= ctxSecret | ctxAWS
	}

	phoneWord := -1 // the last word naming a phone
	for w := 0; w < words; w++ {
		word := name[starts[w]:end(w)]
		has := func(prefix string) bool { return strings.HasPrefix(string(word), prefix) }
		is := func(s string) bool { return string(word) == s }
		// Dispatch on the first letter: this runs for every key of every document.
		switch word[0] {
		case 'a':
			if is("aws") {
				fc |= ctxAWS
			}
		case 'b':
			if has("barcode") {
				fc |= ctxNotCard
			}
		case 'c':
			switch {
			case is("cell"):
				phoneWord = w
			case is("cc") || has("ccn") || has("card") || has("creditcard"):
				fc |= ctxCard
			}
		case 'e':
			if has("ean") {
				fc |= ctxNotCard
			}
		case 'f':
			if has("fax") {
				phoneWord = w
			}
		case 'g':
			if has("gtin") {
				fc |= ctxNotCard
			}
		case 'i':
			if has("isbn") || has("imei") {
				fc |= ctxNotCard
			}
		case 'm':
			if is("msisdn") || has("mobile") {
				phoneWord = w
			}
		case 'p':
			switch {
			case has("phone"):
				phoneWord = w
			case is("pan"):
				fc |= ctxCard
			}
		case 's':
			switch {
			case is("sms"):
				phoneWord = w
			case is("ssn") || is("ssnumber") || is("socsec") || has("socialsecurity") ||
				is("social") && w+1 < words && strings.HasPrefix(string(name[end(w):]), "security"):
				fc |= ctxSSN
			case has("sscc") || has("serial"):
				fc |= ctxNotCard
			}
		case 't':
			switch {
			case is("tel") || has("telephone") || has("telefon"):
				phoneWord = w
			case has("tracking"):
				fc |= ctxNotCard
			}
		case 'u':
			if has("upc") {
				fc |= ctxNotCard
			}
		case 'w':
			if is("whatsapp") {
				phoneWord = w
			}
		}
		if len(word) > 5 && word[len(word)-1] == 'e' && strings.HasSuffix(string(word), "phone") {
			phoneWord = w // homephone, cellphone
		}
	}
	// The phone must be what the field holds: phone, contactPhone, faxNumber, tel_no; not
	// phoneVerified or mobileAppBuild.
	if phoneWord == words-1 || phoneWord == words-2 && phoneWord >= 0 {
		switch string(last1) {
		case "number", "numbers", "no", "num", "nr", "nbr", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9":
			fc |= ctxPhone // phoneNumber, phone_2
		default:
			if phoneWord == words-1 {
				fc |= ctxPhone
			}
		}
	}
	return fc
}

// financialField reports whether a field name ends with a financial identifier: its last
// one to four words, joined, are one of financialNames. It is SensitiveField's alone, off
// the scan's path.
func financialField(name string) bool {
	var kw keyWords
	kw.read(name)
	for k := 1; k <= kw.words && k <= 4; k++ {
		if _, ok := financialNames[string(kw.buf[kw.starts[kw.words-k]:kw.n])]; ok {
			return true
		}
	}
	return false
}

// financialNames are the financial identifiers a field name may end with, as its last one
// to four words joined: bank account, routing and sort codes, SWIFT/BIC, IBAN, tax and VAT
// ids. A bare "accountNumber" is not one of them: on a customer or Account it is the
// customer's number with the vendor, which operators fix routinely; a bank's is named so
// (bankAccountNumber, bank_account_no). "vat" and "tax" alone are amounts or rates, and a
// "taxCode" a tax schedule: none of them is an identifier.
var financialNames = map[string]struct{}{
	"iban": {}, "ibannumber": {}, "ibanno": {}, "ibancode": {},
	"bic": {}, "biccode": {}, "swift": {}, "swiftcode": {}, "swiftbic": {}, "swiftbiccode": {}, "bicswift": {},
	"bicswiftcode": {}, "swiftnumber": {},
	"bankaccount": {}, "bankaccountnumber": {}, "bankaccountno": {}, "bankaccountnum": {}, "bankaccountnr": {},
	"bankaccountnbr": {}, "bankacct": {}, "bankacctnumber": {}, "bankacctno": {}, "bankacctnum": {},
	"routingnumber": {}, "routingno": {}, "routingnum": {}, "routingnr": {}, "routingnbr": {},
	"routingtransitnumber": {}, "aba": {}, "abanumber": {}, "abano": {}, "abanum": {}, "abarouting": {},
	"sortcode": {}, "bsb": {}, "bsbnumber": {}, "bsbno": {},
	"taxid": {}, "taxidnumber": {}, "taxidnum": {}, "taxidno": {}, "taxnumber": {}, "taxno": {}, "taxnum": {},
	"taxnr": {}, "taxregnumber": {}, "taxregno": {}, "taxregnum": {}, "taxregistration": {},
	"taxregistrationnumber": {}, "taxregistrationno": {}, "taxregistrationid": {}, "taxpayerid": {},
	"taxpayernumber": {}, "taxpayeridnumber": {}, "taxidentificationnumber": {}, "taxidentifier": {},
	"taxidentifiers": {},
	"vatid":          {}, "vatidnumber": {}, "vatnumber": {}, "vatno": {}, "vatnum": {}, "vatnr": {}, "vatregnumber": {},
	"vatregno": {}, "vatregnum": {}, "vatregistration": {}, "vatregistrationnumber": {}, "vatregistrationno": {},
	"vatregistrationid": {}, "vatin": {}, "ustid": {}, "ustidnr": {},
	"ein": {}, "einnumber": {}, "fein": {}, "tin": {}, "tinnumber": {}, "employeridentificationnumber": {},
}

// secretValue reports whether the value of a secret-named field is worth reporting: not
// empty, not already masked, not a placeholder from an earlier scan, not a boolean flag.
func secretValue(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || isPlaceholder(v) {
		return false
	}
	masked := true
	for _, r := range v {
		if r != '*' && r != '•' && r != '●' && r != 'x' && r != 'X' {
			masked = false
			break
		}
	}
	if masked {
		return false
	}
	// A reference to a secret ("${DB_PASSWORD}", "{{ vault.erp_password }}") is not one.
	if strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") ||
		strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}") {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "null", "nil", "none", "undefined", "n/a", "redacted",
		"[redacted]", "required", "optional", "hidden", "set", "unset":
		return false
	}
	return true
}

// secretShaped reports whether v, found under a secret's name but not as its value, looks
// like the secret itself: a single token of at least 8 characters (after an auth scheme)
// with letters and digits or symbols (or, from 16 characters, letters in mixed case), and
// not a number, a date or time, a URL or an address. What such objects hold besides the
// secret (ids, statuses, "oauth2", "Password" as a picklist option, URLs, expiry times,
// "managed by IT") fails one of these; a secret short or plain enough to pass them all is
// given up for that.
func secretShaped(v string) bool {
	v = strings.TrimSpace(v)
	v = v[authSchemeLen(v):]
	if len(v) < 8 || !secretValue(v) || strings.Contains(v, "://") || isAddress(v) {
		return false
	}
	var lower, upper, digit, symbol bool
	timeLike := true // digits and - : . / + , T Z only: a number, a date or a time
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c <= ' ':
			return false // words, not a token
		case isLower(c):
			lower, timeLike = true, false
		case isUpper(c):
			upper = upper || i > 0 // "Password" is a word, not mixed case
			timeLike = timeLike && (c == 'T' || c == 'Z')
		case isDigit(c):
			digit = true
		default:
			symbol = true
			timeLike = timeLike && strings.IndexByte("-:./+,", c) >= 0
		}
	}
	letters := lower || upper || isLetter(v[0])
	return !timeLike && letters && (digit || symbol || len(v) >= 16 && lower && upper)
}

// isAddress reports whether v has an email address's shape: something@ an email domain as
// the text detector reads one (emailDomain: "P@ssw0rd.1" is not one).
func isAddress(v string) bool {
	at := strings.LastIndexByte(v, '@')
	return at > 0 && emailDomain(v[at+1:])
}

// describesSecret reports whether a member name says its value describes a credential
// rather than holds it (id, type, status, tokenUrl, username, expiresAt): under a
// secret's name, its value inherits nothing. The name is judged by its last word.
func describesSecret(key string) bool {
	var kw keyWords
	kw.read(key)
	if kw.words == 0 {
		return false
	}
	switch string(kw.buf[kw.starts[kw.words-1]:kw.n]) {
	case "id", "ids", "type", "kind", "status", "state", "name", "label", "title", "description",
		"url", "uri", "href", "link", "endpoint", "host", "scope", "scopes", "method", "provider",
		"format", "version", "user", "username", "login", "email", "at", "on", "date", "time",
		"in", "expiry", "expires", "expiration", "created", "updated", "count", "length":
		return true
	}
	return false
}

// withoutPlaceholders replaces each placeholder in s by a space.
func withoutPlaceholders(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := placeholderLen(s[i:]); n > 0 {
			b.WriteByte(' ')
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// isPlaceholder reports whether v is exactly one placeholder this package writes:
// [EMAIL_3] or [REDACTED:EMAIL].
func isPlaceholder(v string) bool {
	n := placeholderLen(v)
	return n > 0 && n == len(v)
}

// placeholderLen returns the length of the placeholder at the start of v, or 0.
func placeholderLen(v string) int {
	if len(v) < 3 || v[0] != '[' {
		return 0
	}
	i := 1
	if strings.HasPrefix(v[1:], "REDACTED:") {
		i += len("REDACTED:")
		j := i
		for j < len(v) && (v[j] >= 'A' && v[j] <= 'Z' || v[j] == '_') {
			j++
		}
		if j == i || j >= len(v) || v[j] != ']' {
			return 0
		}
		return j + 1
	}
	j := i
	for j < len(v) && (v[j] >= 'A' && v[j] <= 'Z' || v[j] == '_') {
		j++
	}
	if j == i || v[j-1] != '_' {
		return 0
	}
	d := j
	for j < len(v) && isDigit(v[j]) {
		j++
	}
	if j == d || j >= len(v) || v[j] != ']' {
		return 0
	}
	return j + 1
}
