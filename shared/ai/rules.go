package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/syncassist/syncassist/shared/identity"
)

// NewRulesProvider returns the offline, deterministic diagnoser. Weighted pattern rules
// over the error code and message classify the error; the payload, the context and the
// message then give field fixes from tables (countries, states, currencies), formats
// (dates, phone numbers, amounts, postal codes, e-mail addresses) and what the message
// itself names (max lengths, allowed values, replacements, the existing record). It uses
// no model, no network and no tokens, so it is the default.
func NewRulesProvider() Provider { return &rulesProvider{} }

type rulesProvider struct {
	// last is the most recent analysis: Governed asks assessQuality about the request it
	// just had suggest analyse, and analysing it again would double the cost. A request
	// analysed concurrently only misses the cache.
	last atomic.Pointer[analysis]
}

func (p *rulesProvider) Name() string { return ProviderRules }

func (p *rulesProvider) analysisOf(req DiagnosisRequest) *analysis {
	if a := p.last.Load(); a != nil && sameRequest(a.req, req) {
		return a
	}
	a := analyze(req)
	p.last.Store(a)
	return a
}

func sameRequest(a, b DiagnosisRequest) bool {
	return a.RecordType == b.RecordType && a.RecordID == b.RecordID && a.ErrorCode == b.ErrorCode &&
		a.Message == b.Message && a.Integration == b.Integration && a.ExternalSystem == b.ExternalSystem &&
		a.Direction == b.Direction && bytes.Equal(a.Payload, b.Payload) && bytes.Equal(a.Context, b.Context)
}

func (p *rulesProvider) suggest(_ context.Context, _ *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	return p.analysisOf(req).diagnosis(), Usage{Model: RulesModel}, nil
}

// assessQuality re-derives the diagnosis and scores d by it: the rules' own proposal
// scores its certainty times its weakest change, and a diagnosis from elsewhere scores
// lower where the rules do not reproduce it.
func (p *rulesProvider) assessQuality(_ context.Context, _ *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	return p.analysisOf(req).score(d), Usage{Model: RulesModel}, nil
}

// chat answers with the rules' reading of the last user message: deterministic and short,
// so that the operator surfaces work without a model.
func (p *rulesProvider) chat(_ context.Context, _ *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	var last string
	for _, m := range req.Messages {
		if m.Role == RoleUser {
			last = m.Content
		}
	}
	if strings.TrimSpace(last) == "" {
		return ChatResponse{Content: "Rule-based assistant: send an error message to classify."}, Usage{Model: RulesModel}, nil
	}
	c := classify("", last)
	kind := "not transient: it needs a data or configuration change"
	if c.class.Retryable() {
		kind = "transient: retrying later should succeed"
	}
	return ChatResponse{Content: fmt.Sprintf("Rule-based assessment: a %s error (%s). %s",
		c.class, kind, advice[c.class])}, Usage{Model: RulesModel}, nil
}

// proposal is one change with how firmly it follows and why.
type proposal struct {
	change FieldChange
	basis  float64
	reason string
}

type analysis struct {
	req       DiagnosisRequest
	cls       classification
	msg       message
	doc       map[string]any
	nodes     []node
	ctxNodes  []node
	field     string // the field the error is about, for the summary
	proposals []proposal
	notes     []string
}

func analyze(req DiagnosisRequest) *analysis {
	a := &analysis{req: req, cls: classify(req.ErrorCode, req.Message), msg: readMessage(req.Message)}
	var err error
	if a.doc, err = decodeObject(req.Payload); err != nil {
		a.doc = map[string]any{}
		a.notes = append(a.notes, "the payload is not a JSON object, so no field change can be derived")
	}
	a.nodes = flatten(a.doc)
	if c, err := decodeObject(req.Context); err == nil {
		a.ctxNodes = flatten(c)
	}
	if a.cls.class == ClassMissing && eitherOrInvalid.MatchString(a.msg.lower) {
		// "Missing or invalid X": when the record has X, it is invalid, not missing.
		if t := locate(a.msg, a.nodes); len(t) > 0 && t[0].score >= 2 && !isEmpty(t[0].value) {
			a.cls = classification{class: ClassValue, certainty: 0.6, cues: []string{"missing or invalid, and the record has the field"}}
		}
	}
	switch a.cls.class {
	case ClassValue, ClassParse, ClassReference, ClassBusinessRule:
		a.fixValue()
	case ClassMissing:
		a.fixMissing()
	case ClassDuplicate:
		a.fixDuplicate()
	}
	return a
}

func (a *analysis) propose(path string, before, after any, basis float64, reason string) {
	a.proposals = append(a.proposals, proposal{
		change: FieldChange{Path: path, Before: before, After: after}, basis: basis, reason: reason,
	})
}

// fixValue looks for the value the message complains about and a correction of it.
// Business-rule errors are only corrected with a value the message names, and reference
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
		switch a.cls.class {
		case ClassBusinessRule:
		case ClassReference:
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
		if f, _, ok := parseNumber(named, ""); ok {
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
	if isStr && (numberHint.MatchString(lowerMsg) || numberKey.MatchString(t.keyNorm)) {
		if f, basis, ok := parseNumber(s, country); ok {
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

var eitherOrInvalid = regexp.MustCompile(`missing or invalid|invalid or missing`)

var (
	numberHint = regexp.MustCompile(`\bnumber\b|numeric|decimal|bigdecimal|integer|\bdouble\b|\bfloat\b|required type|not a valid representation|amount`)
	numberKey  = regexp.MustCompile(`amount|price|rate$|total|qty|quantity|cost|weight|^debit|^credit`)
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

// missingFields lists the fields the message says are missing.
func (a *analysis) missingFields() []string {
	var out []string
	for _, re := range missingREs {
		sm := re.FindStringSubmatch(a.req.Message, a.msg.lower)
		if sm == nil {
			continue
		}
		for _, f := range strings.Split(sm[1], ",") {
			f = strings.TrimSpace(strings.Trim(strings.TrimSpace(f), `'"“”[]`))
			if f != "" && !stopFields[strings.ToLower(f)] {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// fixMissing derives a value for a missing field from elsewhere in the record: its
// billing/shipping counterpart, the value every other line has, or the same field in the
// context the host sent. Nothing else: a guessed value would be written to the ERP.
func (a *analysis) fixMissing() {
	for _, name := range a.missingFields() {
		if a.field == "" {
			a.field = name
		}
		if a.fixMissingOne(name) {
			return
		}
	}
}

func (a *analysis) fixMissingOne(name string) bool {
	segs, err := parsePath(name)
	isPath := err == nil && strings.ContainsAny(name, ".[")
	if isPath {
		if v, _, ok := resolve(a.doc, segs); ok && !isEmpty(v) {
			return false // present after all: the message is about something else
		}
	}
	nameKey := normKey(name)

	// The counterpart: shipcountry from billcountry, shipping_address.x from billing_address.x.
	for _, n := range a.nodes {
		if n.container || isEmpty(n.value) || containsPlaceholder(n.value) {
			continue
		}
		for _, cand := range counterpartPaths(n.segs) {
			path := formatPath(cand)
			if v, _, ok := resolve(a.doc, cand); ok && !isEmpty(v) {
				continue
			}
			match := false
			if isPath {
				match = normKey(path) == normKey(formatPath(segs))
			} else {
				last := cand[len(cand)-1]
				match = !last.isIdx && labelMatches(nameKey, normKey(last.key))
			}
			if match {
				a.field = path
				a.propose(path, nil, cloneValue(n.value), basisCopy,
					fmt.Sprintf("copied from its counterpart %s, which the record has", n.path))
				return true
			}
		}
	}
	// The same field on every other line.
	if isPath {
		if v, from, ok := a.siblingValue(segs); ok {
			path := formatPath(segs)
			a.field = path
			a.propose(path, nil, v, basisSibling, fmt.Sprintf("every other line (%s) has this value", from))
			return true
		}
	}
	// The same field in the context.
	lastKey := nameKey
	if isPath && !segs[len(segs)-1].isIdx {
		lastKey = normKey(segs[len(segs)-1].key)
	}
	var found []node
	for _, n := range a.ctxNodes {
		if !n.container && !isEmpty(n.value) && !containsPlaceholder(n.value) && n.keyNorm == lastKey {
			found = append(found, n)
		}
	}
	if len(found) > 0 && allEqual(found) {
		path := name
		if !isPath {
			path = formatPath([]segment{{key: found[0].key}})
		}
		a.field = path
		a.propose(path, nil, cloneValue(found[0].value), basisContext,
			fmt.Sprintf("the context the host sent gives %s", found[0].path))
		return true
	}
	return false
}

// counterpartPaths are the paths a value would have on the other side of a
// billing/shipping pair: each key segment that starts with one prefix, swapped for the
// other, keeping the key's case.
func counterpartPaths(segs []segment) [][]segment {
	var out [][]segment
	for i, s := range segs {
		if s.isIdx {
			continue
		}
		lower := strings.ToLower(s.key)
		for _, pair := range counterparts {
			for _, dir := range [][2]string{{pair[0], pair[1]}, {pair[1], pair[0]}} {
				if !strings.HasPrefix(lower, dir[0]) {
					continue
				}
				repl := dir[1]
				if s.key[0] >= 'A' && s.key[0] <= 'Z' {
					repl = strings.ToUpper(repl[:1]) + repl[1:]
				}
				c := make([]segment, len(segs))
				copy(c, segs)
				c[i] = segment{key: repl + s.key[len(dir[0]):]}
				out = append(out, c)
			}
		}
	}
	return out
}

// labelMatches reports whether a field key fits a label a message shows ("Ship To
// Country" for shipcountry): the key's letters appear in order in the label, which starts
// with the key's first letter and ends with its last three.
func labelMatches(label, key string) bool {
	if key == "" || label == "" {
		return false
	}
	if label == key {
		return true
	}
	if label[0] != key[0] || len(key) < 4 || len(key)*10 < len(label)*7 ||
		!strings.HasSuffix(label, key[len(key)-3:]) {
		return false
	}
	i := 0
	for j := 0; j < len(label) && i < len(key); j++ {
		if label[j] == key[i] {
			i++
		}
	}
	return i == len(key)
}

// siblingValue finds the value the other elements of an array agree on for a path with
// an index, such as items[1].location.
func (a *analysis) siblingValue(segs []segment) (any, string, bool) {
	idx := -1
	for i, s := range segs {
		if s.isIdx {
			idx = i
		}
	}
	if idx < 0 {
		return nil, "", false
	}
	arr, _, ok := resolve(a.doc, segs[:idx])
	list, isList := arr.([]any)
	if !ok || !isList || len(list) < 2 {
		return nil, "", false
	}
	var val any
	var from []string
	for i := range list {
		if i == segs[idx].index {
			continue
		}
		c := make([]segment, len(segs))
		copy(c, segs)
		c[idx] = segment{index: i, isIdx: true}
		v, _, ok := resolve(a.doc, c)
		if !ok || isEmpty(v) || containsPlaceholder(v) || (val != nil && !jsonEqual(val, v)) {
			return nil, "", false
		}
		val = v
		from = append(from, formatPath(c))
	}
	return cloneValue(val), strings.Join(from, ", "), val != nil
}

var existingIDREs = []fastRE{
	mustFast(`(?i)internal\s*id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)existing (?:record |object |contact |customer |company |account )?id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)(?:on|with) (?:the )?record (?:with )?id\s*[:#=]?\s*['"]?([A-Za-z0-9_-]+)`),
	mustFast(`(?i)existing (?:record|object)\s*[:#]\s*['"]?([A-Za-z0-9_-]+)`),
}

// fixDuplicate links the record to the one that exists, when the message names its id:
// with the id set, the next sync updates that record instead of creating it again.
func (a *analysis) fixDuplicate() {
	var id string
	for _, re := range existingIDREs {
		if sm := re.FindStringSubmatch(a.req.Message, a.msg.lower); sm != nil && strings.ContainsAny(sm[1], "0123456789") {
			id = sm[1]
			break
		}
	}
	if id == "" {
		return
	}
	for _, n := range a.nodes {
		if s, ok := scalarString(n.value); ok && s == id {
			return // the id is the record's own value (its external id), not another record's
		}
	}
	path := ""
	for _, k := range []string{"internalId", "internalid", "id", "Id", "ID", "existingId"} {
		if _, ok := a.doc[k]; ok {
			path = k
			break
		}
	}
	if path == "" {
		sys := strings.ToLower(a.req.ExternalSystem)
		switch {
		case strings.Contains(sys, "netsuite"):
			path = "internalId"
		case strings.Contains(sys, "salesforce"):
			path = "Id"
		default:
			path = "id"
		}
	}
	a.field = path
	a.propose(path, a.doc[path], id, basisLink,
		fmt.Sprintf("the message names the existing record %s; linking to it turns the create into an update", id))
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	}
	return false
}

func allEqual(ns []node) bool {
	for _, n := range ns[1:] {
		if !jsonEqual(n.value, ns[0].value) {
			return false
		}
	}
	return true
}

// advice is what an operator does about each class when no field change settles it.
var advice = map[ErrorClass]string{
	ClassValue:        "Correct the value in the source record, or map it to what the target accepts.",
	ClassMissing:      "Fill the required field in the source record or give the mapping a default.",
	ClassReference:    "Create or sync the referenced record first, or point the field at an existing one.",
	ClassDuplicate:    "Link the record to the existing one instead of creating it again.",
	ClassPermission:   "Grant the integration role the permission named in the message or renew its credentials; no data change will help.",
	ClassConnection:   "The request never reached the target; the retry will send it again.",
	ClassIntermittent: "The target failed temporarily; the retry will send it again.",
	ClassRateLimit:    "The target throttled the integration; the retry will send it again after a pause.",
	ClassTooLarge:     "Split the record (fewer lines or smaller attachments) or raise the target's limit.",
	ClassParse:        "Check the mapping that produces the field the parser rejected; the sender wrote a value of the wrong type or a malformed document.",
	ClassBusinessRule: "A business decision is needed (another period, item, currency or subsidiary), or a configuration change in the target.",
}

var classPhrase = map[ErrorClass]string{
	ClassValue:        "%s rejected a field value",
	ClassMissing:      "a field %s requires is missing",
	ClassReference:    "it references a record that does not exist in %s",
	ClassDuplicate:    "the record already exists in %s",
	ClassPermission:   "the integration user lacks a permission in %s",
	ClassConnection:   "the connection to %s failed",
	ClassIntermittent: "%s failed temporarily",
	ClassRateLimit:    "%s rate-limited the integration",
	ClassTooLarge:     "the request exceeds a size limit of %s",
	ClassParse:        "a message to or from %s could not be parsed",
	ClassBusinessRule: "a business rule of %s refused it",
}

func (a *analysis) diagnosis() Diagnosis {
	system := a.req.ExternalSystem
	if system == "" {
		system = "the target system"
	}
	subject := strings.TrimSpace(a.req.RecordType + " " + a.req.RecordID)
	if subject == "" {
		subject = "The record"
	} else {
		subject = strings.ToUpper(subject[:1]) + subject[1:]
	}
	summary := fmt.Sprintf("%s failed because "+classPhrase[a.cls.class], subject, system)
	if a.field != "" && !a.cls.class.Retryable() {
		summary += fmt.Sprintf(" (%s)", a.field)
	}
	fix := []FieldChange{}
	var reasons []string
	for _, p := range a.proposals {
		fix = append(fix, FieldChange{Path: p.change.Path, Before: cloneValue(p.change.Before), After: cloneValue(p.change.After)})
		reasons = append(reasons, fmt.Sprintf("%s: %s.", p.change.Path, p.reason))
	}
	if len(fix) > 0 {
		var parts []string
		for _, c := range fix {
			parts = append(parts, fmt.Sprintf("set %s to %s", c.Path, showValue(c.After)))
		}
		summary += "; " + strings.Join(parts, ", ")
	}
	summary += "."

	var b strings.Builder
	if len(a.cls.cues) > 0 {
		fmt.Fprintf(&b, "Classified as %s from the error's %s.", a.cls.class, strings.Join(quoteAll(a.cls.cues), ", "))
	} else {
		fmt.Fprintf(&b, "No rule recognised the error; classified as %s for review.", a.cls.class)
	}
	for _, r := range reasons {
		b.WriteString(" " + r)
	}
	if len(fix) == 0 && !a.cls.class.Retryable() {
		switch a.cls.class {
		case ClassValue, ClassMissing, ClassReference, ClassDuplicate, ClassBusinessRule, ClassParse:
			b.WriteString(" No change can be derived from the record alone.")
		}
	}
	for _, n := range a.notes {
		b.WriteString(" Note: " + n + ".")
	}
	b.WriteString(" " + advice[a.cls.class])
	return Diagnosis{
		Class:     a.cls.class,
		Retryable: a.cls.class.Retryable(),
		Summary:   summary,
		Fix:       fix,
		Rationale: b.String(),
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

func showValue(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}

// unverifiedBasis is the weight of a change the rules cannot reproduce: possibly right,
// but nothing in the record confirms it.
const unverifiedBasis = 0.4

// missedFixFactor discounts a diagnosis for each change the rules derive that it lacks:
// it may be right, but leaves work the data already answers.
const missedFixFactor = 0.8

// score is the rules' confidence in d: the classification's certainty (a third of it when
// the rules disagree with the class), times the weakest change's basis, discounted for
// each change the rules derive that d lacks.
func (a *analysis) score(d Diagnosis) float64 {
	c := a.cls.certainty
	if d.Class != a.cls.class {
		c /= 3
	}
	for _, p := range a.proposals {
		if !slices.ContainsFunc(d.Fix, func(ch FieldChange) bool {
			return normKey(p.change.Path) == normKey(ch.Path) && jsonEqual(p.change.After, ch.After)
		}) {
			c *= missedFixFactor
		}
	}
	weakest := 1.0
	for _, ch := range d.Fix {
		basis := unverifiedBasis
		for _, p := range a.proposals {
			if normKey(p.change.Path) == normKey(ch.Path) && jsonEqual(p.change.After, ch.After) {
				basis = p.basis
				break
			}
		}
		weakest = math.Min(weakest, basis)
	}
	return math.Round(c*weakest*100) / 100
}
