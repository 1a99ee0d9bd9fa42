package ai

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// How firmly a proposed value follows from the data: the rules' confidence in one change.
const (
	basisTable     = 0.95 // looked up in a fixed table (countries, states, currencies)
	basisEnum      = 0.92 // the one allowed value the message lists that differs only in case
	basisNamed     = 0.9  // the message itself names the right value
	basisFormat    = 0.9  // a reformatting with one reading (dates, booleans)
	basisNumber    = 0.85 // a number written with one unambiguous locale
	basisEmail     = 0.85 // whitespace, case and punctuation removed from an address
	basisEnumLoose = 0.85 // the one allowed value equal after dropping spaces and punctuation
	basisLink      = 0.85 // the existing record's id, named by the message
	basisPhone     = 0.8  // E.164 from a national number and the record's country
	basisPostal    = 0.8  // a postal code repaired by the country's format
	basisCopy      = 0.75 // a missing value copied from its billing/shipping counterpart
	basisTrim      = 0.7  // shortened to the maximum length: correct but loses text
	basisContext   = 0.65 // a missing value found under the same name in the context
	basisLocale    = 0.6  // a reading that depends on the record's country (03/04/2026)
	basisSibling   = 0.6  // a missing line value all other lines agree on
)

// dateLayouts maps what messages call a format to a Go layout.
var dateLayouts = []struct{ cue, layout string }{
	{"yyyy-mm-dd", "2006-01-02"}, {"iso 8601", "2006-01-02"}, {"iso-8601", "2006-01-02"},
	{"iso8601", "2006-01-02"}, {"iso date", "2006-01-02"},
	{"mm/dd/yyyy", "01/02/2006"}, {"dd/mm/yyyy", "02/01/2006"}, {"dd.mm.yyyy", "02.01.2006"},
	{"yyyymmdd", "20060102"},
}

// targetLayout is the date format the message asks for, ISO 8601 when it names none
// (what APIs that reject a date expect).
func targetLayout(lowerMsg string) string {
	for _, d := range dateLayouts {
		if strings.Contains(lowerMsg, d.cue) {
			return d.layout
		}
	}
	return "2006-01-02"
}

var (
	ymdRE      = lazyRegexp(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$`)
	isoTimeRE  = lazyRegexp(`^(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}`)
	xxyRE      = lazyRegexp(`^(\d{1,2})([./-])(\d{1,2})([./-])(\d{4})$`)
	dMonYRE    = lazyRegexp(`^(\d{1,2})\.?[ -]([A-Za-zäé]{3,9})\.?[ -,]+(\d{4})$`)
	monDYRE    = lazyRegexp(`^([A-Za-z]{3,9})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$`)
	compactRE  = lazyRegexp(`^(\d{4})(\d{2})(\d{2})$`)
	monthNames = map[string]time.Month{
		"jan": 1, "january": 1, "januar": 1, "feb": 2, "february": 2, "februar": 2, "mar": 3,
		"march": 3, "mär": 3, "märz": 3, "maerz": 3, "apr": 4, "april": 4, "may": 5, "mai": 5,
		"jun": 6, "june": 6, "juni": 6, "jul": 7, "july": 7, "juli": 7, "aug": 8, "august": 8,
		"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "okt": 10, "oktober": 10,
		"nov": 11, "november": 11, "dec": 12, "december": 12, "dez": 12, "dezember": 12,
	}
)

// monthFirst are countries that write dates month first.
var monthFirst = setOf("US", "PH", "FM", "MH", "PW")

func mkDate(y, m, d int) (time.Time, bool) {
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, t.Year() == y && int(t.Month()) == m && t.Day() == d
}

// parseDate reads the date formats ERP exports and spreadsheets produce. An all-numeric
// day/month order that only the country can decide gets basisLocale; without a country
// it is not read at all.
func parseDate(s, country string, compactOK bool) (time.Time, float64, bool) {
	s = strings.TrimSpace(s)
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	if m := ymdRE().FindStringSubmatch(s); m != nil {
		t, ok := mkDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
		return t, basisFormat, ok
	}
	if m := isoTimeRE().FindStringSubmatch(s); m != nil {
		t, ok := mkDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
		return t, basisFormat, ok
	}
	if m := xxyRE().FindStringSubmatch(s); m != nil && m[2] == m[4] {
		a, b, y := atoi(m[1]), atoi(m[3]), atoi(m[5])
		day, month, basis := 0, 0, basisFormat
		switch {
		case m[2] == ".": // dotted dates are day first wherever they are written
			day, month = a, b
		case a > 12 && b <= 12:
			day, month = a, b
		case b > 12 && a <= 12:
			day, month = b, a
		case a == b:
			day, month = a, b
		case country == "":
			return time.Time{}, 0, false
		case monthFirst[country]:
			day, month, basis = b, a, basisLocale
		default:
			day, month, basis = a, b, basisLocale
		}
		t, ok := mkDate(y, month, day)
		return t, basis, ok
	}
	if m := dMonYRE().FindStringSubmatch(s); m != nil {
		if mo, ok := monthNames[strings.ToLower(m[2])]; ok {
			t, ok := mkDate(atoi(m[3]), int(mo), atoi(m[1]))
			return t, basisFormat, ok
		}
	}
	if m := monDYRE().FindStringSubmatch(s); m != nil {
		if mo, ok := monthNames[strings.ToLower(m[1])]; ok {
			t, ok := mkDate(atoi(m[3]), int(mo), atoi(m[2]))
			return t, basisFormat, ok
		}
	}
	if m := compactRE().FindStringSubmatch(s); m != nil && compactOK {
		t, ok := mkDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
		return t, basisFormat, ok
	}
	return time.Time{}, 0, false
}

// toE164 writes a phone number as +<country code><number>. A number without an
// international prefix needs the record's country; the trunk 0 is dropped except where
// it belongs to the number (Italy).
func toE164(s, country string) (string, bool) {
	raw := strings.TrimSpace(s)
	if raw == "" {
		return "", false
	}
	raw = strings.ReplaceAll(raw, "(0)", "")
	for _, r := range raw {
		if unicode.IsLetter(r) {
			return "", false // an extension or a word: not a number to rewrite blindly
		}
	}
	intl := strings.HasPrefix(raw, "+") || strings.HasPrefix(raw, "00")
	var digits strings.Builder
	for _, r := range raw {
		if r >= '0' && r <= '9' {
			digits.WriteRune(r)
		}
	}
	d := digits.String()
	if intl {
		if !strings.HasPrefix(raw, "+") {
			d = strings.TrimPrefix(d, "00")
		}
		if len(d) < 8 || len(d) > 15 {
			return "", false
		}
		return "+" + d, true
	}
	c, ok := countryByAlpha2[country]
	if !ok {
		return "", false
	}
	switch c.calling {
	case "1":
		if len(d) == 11 && d[0] == '1' {
			d = d[1:]
		}
		if len(d) != 10 {
			return "", false
		}
	default:
		if c.alpha2 != "IT" && c.alpha2 != "SM" {
			d = strings.TrimPrefix(d, "0")
		}
		if len(d) < 6 || len(d) > 13 {
			return "", false
		}
	}
	out := "+" + c.calling + d
	if len(out)-1 > 15 {
		return "", false
	}
	return out, true
}

var emailRE = lazyRegexp(`^[a-z0-9._%+'-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$`)

// cleanEmail repairs what copy and paste does to addresses: surrounding and inner
// spaces, a mailto: prefix, angle brackets, a trailing dot or comma, a doubled @, commas
// for dots in the domain, and case (addresses are matched case-insensitively by the systems the
// service writes to, and lower case is how they store them).
func cleanEmail(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) >= 7 && strings.EqualFold(t[:7], "mailto:") {
		t = t[7:]
	}
	t = strings.Trim(t, "<> ")
	t = strings.Join(strings.Fields(t), "")
	t = strings.ToLower(t)
	t = strings.TrimRight(t, ".,;")
	for strings.Contains(t, "@@") {
		t = strings.ReplaceAll(t, "@@", "@")
	}
	at := strings.Count(t, "@")
	if at != 1 {
		return "", false
	}
	local, domain, _ := strings.Cut(t, "@")
	domain = strings.ReplaceAll(domain, ",", ".")
	for strings.Contains(domain, "..") {
		domain = strings.ReplaceAll(domain, "..", ".")
	}
	t = local + "@" + domain
	if !emailRE().MatchString(t) {
		return "", false
	}
	return t, true
}

var (
	digitsRE  = lazyRegexp(`^\d+$`)
	caPostRE  = lazyRegexp(`^([A-Z]\d[A-Z])\s*(\d[A-Z]\d)$`)
	gbPostRE  = lazyRegexp(`^([A-Z]{1,2}\d[A-Z\d]?)\s*(\d[A-Z]{2})$`)
	nlPostRE  = lazyRegexp(`^(\d{4})\s*([A-Z]{2})$`)
	usZip9RE  = lazyRegexp(`^(\d{5})-?(\d{4})$`)
	usZipDash = lazyRegexp(`^(\d{5})-$`)
)

// zipZeroStates are the states whose ZIP codes start with 0, the ones a spreadsheet
// shortens by dropping the leading zero.
var zipZeroStates = setOf("CT", "MA", "ME", "NH", "NJ", "PR", "RI", "VT", "VI", "AE")

// fixPostal repairs a postal code by its country's format: US ZIP codes that lost their
// leading zero in a spreadsheet (only where the state's codes start with 0: elsewhere a
// short ZIP lost another digit, which nothing can restore), and the spacing and case of
// CA, GB and NL codes.
func fixPostal(s, country, state string) (string, float64, bool) {
	t := strings.ToUpper(strings.TrimSpace(s))
	switch country {
	case "US", "PR":
		switch {
		case digitsRE().MatchString(t) && len(t) == 4 && zipZeroStates[state]:
			return "0" + t, basisPostal, true
		case usZip9RE().MatchString(t):
			m := usZip9RE().FindStringSubmatch(t)
			return m[1] + "-" + m[2], basisPostal, true
		case usZipDash().MatchString(t):
			return t[:5], basisPostal, true
		}
	case "CA":
		if m := caPostRE().FindStringSubmatch(t); m != nil {
			return m[1] + " " + m[2], basisPostal, true
		}
	case "GB":
		if m := gbPostRE().FindStringSubmatch(t); m != nil {
			return m[1] + " " + m[2], basisPostal, true
		}
	case "NL":
		if m := nlPostRE().FindStringSubmatch(t); m != nil {
			return m[1] + " " + m[2], basisPostal, true
		}
	}
	return "", 0, false
}

var boolWords = map[string]bool{
	"yes": true, "y": true, "true": true, "t": true, "1": true, "on": true, "ja": true, "oui": true, "si": true, "sí": true, "x": true,
	"no": false, "n": false, "false": false, "f": false, "0": false, "off": false, "nein": false, "non": false,
}

func parseBool(s string) (bool, bool) {
	b, ok := boolWords[strings.ToLower(strings.TrimSpace(s))]
	return b, ok
}

// commaDecimal are countries that write 1.299,50.
var commaDecimal = setOf("DE", "AT", "FR", "BE", "NL", "LU", "ES", "PT", "IT", "DK", "SE", "NO",
	"FI", "PL", "CZ", "SK", "HU", "RO", "BG", "GR", "HR", "SI", "RS", "UA", "TR", "RU", "BR",
	"AR", "CL", "CO", "PE", "ID", "VN", "ZA", "IS", "EE", "LV", "LT")

var numberRE = lazyRegexp(`^-?[\d.,]+$`)

// parseNumber reads an amount written for people ("$1,299.00", "1.299,50", "12,50",
// "1 299,50 €") as a JSON number, digit for digit (decimalText). Where one separator could
// be either (1,299), the record's country decides with basisLocale; without a country it is
// not read.
func parseNumber(s, country string, integral bool) (json.Number, float64, bool) {
	t := strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") {
		neg, t = true, t[1:len(t)-1]
	}
	var b strings.Builder
	for _, r := range t {
		switch {
		case r >= '0' && r <= '9', r == '.', r == ',', r == '-':
			b.WriteRune(r)
		case unicode.IsSpace(r), r == '\'', r == '’', r == '\u00a0', r == '\u202f':
		case unicode.IsLetter(r), unicode.Is(unicode.Sc, r):
			// currency symbols and codes
		default:
			return "", 0, false
		}
	}
	t = b.String()
	if !numberRE().MatchString(t) || strings.Trim(t, "-.,") == "" {
		return "", 0, false
	}
	if strings.HasPrefix(t, "-") {
		neg, t = !neg, t[1:]
	}
	if strings.Contains(t, "-") {
		return "", 0, false
	}
	basis := basisNumber
	commas, dots := strings.Count(t, ","), strings.Count(t, ".")
	switch {
	case commas > 0 && dots > 0:
		if strings.LastIndex(t, ",") > strings.LastIndex(t, ".") {
			t = strings.ReplaceAll(t, ".", "")
			t = strings.Replace(t, ",", ".", 1)
		} else {
			t = strings.ReplaceAll(t, ",", "")
		}
	case commas > 1:
		t = strings.ReplaceAll(t, ",", "")
	case dots > 1:
		t = strings.ReplaceAll(t, ".", "")
	case commas == 1:
		after := len(t) - strings.Index(t, ",") - 1
		switch {
		case after != 3:
			t = strings.Replace(t, ",", ".", 1)
		case integral:
			// A count has no fraction: "1,050" employees are a thousand and fifty.
			t = strings.ReplaceAll(t, ",", "")
		case country == "":
			return "", 0, false
		case commaDecimal[country]:
			t, basis = strings.Replace(t, ",", ".", 1), basisLocale
		default:
			t, basis = strings.ReplaceAll(t, ",", ""), basisLocale
		}
	case dots == 1:
		after := len(t) - strings.Index(t, ".") - 1
		if after == 3 && commaDecimal[country] {
			t, basis = strings.ReplaceAll(t, ".", ""), basisLocale
		}
	}
	if _, err := strconv.ParseFloat(t, 64); err != nil {
		return "", 0, false
	}
	return decimalText(t, neg), basis, true
}

// decimalText is t (digits with at most one '.', as parseNumber leaves it) as a JSON
// number with its digits, its trailing zeros too: "1299.50" stays 1299.50, and a long
// number keeps the digits a float64 would round away.
func decimalText(t string, neg bool) json.Number {
	whole, frac, _ := strings.Cut(t, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return json.Number(s)
}

// trimTo shortens s to n characters, dropping trailing spaces the cut leaves.
func trimTo(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n]), unicode.IsSpace)
}

// matchAllowed finds the one allowed value v stands for: equal ignoring case, or equal
// after dropping spaces and punctuation too.
func matchAllowed(v string, allowed []string) (string, float64, bool) {
	var exact, loose []string
	for _, a := range allowed {
		switch {
		case a == v:
			return "", 0, false // already allowed: the message is about something else
		case strings.EqualFold(a, v):
			exact = append(exact, a)
		case normKey(a) == normKey(v) && normKey(v) != "":
			loose = append(loose, a)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], basisEnum, true
	case len(exact) == 0 && len(loose) == 1:
		return loose[0], basisEnumLoose, true
	}
	return "", 0, false
}
