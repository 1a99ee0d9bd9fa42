package ai

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// fixValue looks for the value the message complains about and a correction of it.
// Refusals by a rule of the target (a closed period, an inactive item) are only corrected with a value the message names, and reference
// errors also through a code table (a country, a currency): nothing in the record can say
// which customer, item or period was meant.
func (a *analysis) fixValue() {
	targets := locate(a.msg, a.nodes)
	for _, t := range targets {
		if t.score < 2 {
			break
		}
		if a.field == "" {
			a.field = t.path
		}
		if s, ok := t.value.(string); ok && placeholderRE.MatchString(s) {
			continue // anonymized: there is nothing to correct
		}
		if a.fixNamed(t, targets) {
			return
		}
		var fixed bool
		switch {
		case a.cls.refusal:
			// A rule of the target refused a well-formed value: only a value the message
			// names is a fix; correcting the format would not change the decision.
		case a.cls.class == ClassReference:
			fixed = a.fixCode(t)
		default:
			fixed = a.fixFormat(t)
		}
		if fixed {
			a.field = t.path
			return
		}
	}
}

// fixNamed uses the value the message names as the right one, on the target it belongs
// to: the field its hint names if there is one, else the best-ranked target.
func (a *analysis) fixNamed(t target, targets []target) bool {
	named := a.msg.named
	if named == "" || placeholderRE.MatchString(named) {
		return false
	}
	if a.msg.namedHint != "" && !strings.Contains(t.keyNorm, a.msg.namedHint) {
		for _, o := range targets {
			if strings.Contains(o.keyNorm, a.msg.namedHint) {
				t = o
				break
			}
		}
		if !strings.Contains(t.keyNorm, a.msg.namedHint) {
			return false
		}
	}
	cur, _ := scalarString(t.value)
	if strings.TrimSpace(cur) == named {
		return false
	}
	var after any = named
	if _, isNum := t.value.(json.Number); isNum {
		if f, _, ok := parseNumber(named, "", false); ok {
			after = f
		}
	}
	a.field = t.path
	a.propose(t.path, t.value, after, basisNamed, fmt.Sprintf("the message names %q as the value to use", named))
	return true
}

// fixFormat corrects the value by what its field holds (country, state, currency, date,
// e-mail, phone, postal code, boolean, amount) and by what the message allows (a list of
// values, a maximum length).
func (a *analysis) fixFormat(t target) bool {
	s, isStr := t.value.(string)
	lowerMsg := a.msg.lower
	key := t.pathKey
	country := a.countryNear(t.node)

	if isStr && len(a.msg.allowed) > 0 {
		if v, basis, ok := matchAllowed(strings.TrimSpace(s), a.msg.allowed); ok {
			a.propose(t.path, s, v, basis, fmt.Sprintf("%q is the allowed value %q in another spelling", s, v))
			return true
		}
	}
	if a.fixCode(t) {
		return true
	}
	if isStr && (strings.Contains(key, "date") || strings.Contains(lowerMsg, "date") || strings.Contains(lowerMsg, "yyyy")) {
		layout := targetLayout(lowerMsg)
		if d, basis, ok := parseDate(s, country, strings.Contains(lowerMsg, "date")); ok {
			if out := d.Format(layout); out != s {
				reason := fmt.Sprintf("%q is %s in the format the field expects", s, d.Format("2 January 2006"))
				if basis == basisLocale {
					reason += fmt.Sprintf(" (day and month read the way %s writes dates)", country)
				}
				a.propose(t.path, s, out, basis, reason)
				return true
			}
		}
	}
	if isStr && (strings.Contains(key, "email") || strings.Contains(lowerMsg, "email") || strings.Contains(lowerMsg, "e-mail")) {
		if e, ok := cleanEmail(s); ok && e != s {
			a.propose(t.path, s, e, basisEmail, "the address without spaces, prefixes and stray punctuation, in lower case")
			return true
		}
	}
	if isStr && (strings.Contains(key, "phone") || strings.Contains(key, "mobile") || strings.Contains(key, "fax") ||
		strings.HasSuffix(t.keyNorm, "tel") || strings.Contains(lowerMsg, "phone")) {
		if p, ok := toE164(s, country); ok && p != s {
			reason := fmt.Sprintf("%q in E.164", s)
			if country != "" && !strings.HasPrefix(strings.TrimSpace(s), "+") {
				reason += fmt.Sprintf(", with the country code of %s from the record", country)
			}
			a.propose(t.path, s, p, basisPhone, reason)
			return true
		}
	}
	if isStr && (strings.Contains(key, "zip") || strings.Contains(key, "postal") || strings.Contains(key, "postcode")) {
		if p, basis, ok := fixPostal(s, country, a.stateNear(t.node)); ok && p != s {
			a.propose(t.path, s, p, basis, fmt.Sprintf("%q written as a %s postal code", s, country))
			return true
		}
	}
	if isStr && (strings.Contains(lowerMsg, "boolean") || strings.Contains(lowerMsg, "true/false") ||
		strings.HasPrefix(t.keyNorm, "is") || strings.HasPrefix(t.keyNorm, "has")) {
		if b, ok := parseBool(s); ok {
			a.propose(t.path, s, b, basisFormat, fmt.Sprintf("%q as a boolean", s))
			return true
		}
	}
	if isStr && (numberHint().MatchString(lowerMsg) || numberKey().MatchString(t.keyNorm)) {
		if f, basis, ok := parseNumber(s, country, countKey().MatchString(t.keyNorm)); ok {
			reason := fmt.Sprintf("%q as a number", s)
			if basis == basisLocale {
				reason += fmt.Sprintf(" (separators read the way %s writes amounts)", country)
			}
			a.propose(t.path, s, f, basis, reason)
			return true
		}
	}
	if isStr && a.msg.maxLen > 0 && len([]rune(strings.TrimSpace(s))) > a.msg.maxLen {
		a.propose(t.path, s, trimTo(s, a.msg.maxLen), basisTrim,
			fmt.Sprintf("shortened to the maximum of %d characters the message names; the cut text is lost", a.msg.maxLen))
		return true
	}
	return false
}

// fixCode corrects a value of a code table: a country, a US state or Canadian province,
// a currency, written as a name, a symbol or in the wrong case.
func (a *analysis) fixCode(t target) bool {
	s, isStr := t.value.(string)
	if !isStr {
		return false
	}
	lowerMsg := a.msg.lower
	key := t.pathKey
	country := a.countryNear(t.node)
	if strings.Contains(key, "country") {
		if c, ok := lookupCountry(s); ok {
			want, std := c.alpha2, "ISO 3166-1 alpha-2"
			if strings.Contains(lowerMsg, "alpha-3") || strings.Contains(lowerMsg, "alpha3") ||
				strings.Contains(lowerMsg, "3-letter") || strings.Contains(lowerMsg, "three-letter") {
				want, std = c.alpha3, "ISO 3166-1 alpha-3"
			}
			if want != s {
				a.propose(t.path, s, want, basisTable, fmt.Sprintf("%q is the %s code %s", s, std, want))
				return true
			}
		}
	}
	if strings.Contains(key, "state") || strings.Contains(key, "province") || strings.Contains(t.keyNorm, "region") {
		if code, ok := lookupRegion(s, country); ok && code != s {
			a.propose(t.path, s, code, basisTable, fmt.Sprintf("%q is the postal abbreviation %s", s, code))
			return true
		}
	}
	if strings.Contains(key, "currency") || strings.Contains(lowerMsg, "currency") {
		if code, ambiguous, ok := lookupCurrency(s, country); ok && code != s {
			basis := basisTable
			if ambiguous {
				basis = basisLocale
			}
			a.propose(t.path, s, code, basis, fmt.Sprintf("%q is the ISO 4217 currency %s", s, code))
			return true
		}
	}
	return false
}

var eitherOrInvalid = lazyRegexp(`missing or invalid|invalid or missing`)

var (
	numberHint = lazyRegexp(`\bnumber\b|numeric|decimal|bigdecimal|integer|\bdouble\b|\bfloat\b|required type|not a valid representation|amount`)
	numberKey  = lazyRegexp(`amount|price|rate$|total|qty|quantity|cost|weight|^debit|^credit|^numberof|count$|employees|headcount|seats`)
	// countKey names fields that hold whole counts.
	countKey = lazyRegexp(`^numberof|count$|employees|headcount|seats|qty|quantity`)
)

// countryNear finds the country a value belongs to: a country field beside it first,
// then any country field of the record.
func (a *analysis) countryNear(n node) string {
	if n.parent != nil {
		keys := make([]string, 0, len(n.parent))
		for k := range n.parent {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := n.parent[k].(string); ok && strings.Contains(normKey(k), "country") {
				if c, ok := lookupCountry(s); ok {
					return c.alpha2
				}
			}
		}
	}
	for _, o := range a.nodes {
		if s, ok := o.value.(string); ok && strings.Contains(o.keyNorm, "country") {
			if c, ok := lookupCountry(s); ok {
				return c.alpha2
			}
		}
	}
	return ""
}

// stateNear finds the US state or Canadian province code beside a value.
func (a *analysis) stateNear(n node) string {
	keys := make([]string, 0, len(n.parent))
	for k := range n.parent {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kn := normKey(k)
		if s, ok := n.parent[k].(string); ok && (strings.Contains(kn, "state") || strings.Contains(kn, "province")) {
			if code, ok := lookupRegion(s, ""); ok {
				return code
			}
		}
	}
	return ""
}

var (
	missingREs = []fastRE{
		mustFast(`(?i)please enter value\(?s?\)?\s*for\s*:?\s*(.+?)\s*\.?$`),
		mustFast(`(?i)required fields? (?:are |is )?missing\s*:?\s*\[?([^\]]+?)\]?\s*\.?$`),
		mustFast(`(?i)missing required (?:field|property|parameter|value)s?\s*:?\s*['"“]?([\w.\[\] ]+?)['"”]?\s*(?:[.;,]|$)`),
		mustFast(`(?i)required (?:property|field|parameter)\s+['"“]?([\w.\[\]]+)['"”]?\s+(?:is\s+)?missing`),
		mustFast(`(?i)(?:field|property|parameter)\s+['"“]?([\w.\[\]]+)['"”]?\s+(?:is\s+)?(?:required|missing|mandatory)`),
		mustFast(`['"“]?([A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)*)['"”]?\s+(?:is|are)\s+(?:required|missing|mandatory)`),
		mustFast(`['"“]?([A-Za-z_][\w]*(?:(?:\.|\[\d+\]\.?)[\w]+)*)['"”]?\s+(?:cannot|must not|may not)\s+be\s+(?:blank|empty|null)`),
	}
	// counterparts are the prefixes a billing and a shipping field differ by.
	counterparts = [][2]string{{"billing", "shipping"}, {"bill", "ship"}, {"invoice", "delivery"}, {"invoice", "shipping"}}
)
