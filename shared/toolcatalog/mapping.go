package toolcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// FieldSpec is a field object of field_mapping_suggest.
type FieldSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Limits of one field_mapping_suggest call.
const (
	maxMappingFields  = 500
	maxSampleRecords  = 200
	minCandidateScore = 0.15
)

type mappingArgs struct {
	SourceSystem        string           `json:"sourceSystem"`
	TargetSystem        string           `json:"targetSystem"`
	SourceFields        []FieldSpec      `json:"sourceFields"`
	TargetFields        []FieldSpec      `json:"targetFields"`
	SampleData          []map[string]any `json:"sampleData"`
	ConfidenceThreshold *float64         `json:"confidenceThreshold"`
}

// Suggestion maps one target field from one source field.
type Suggestion struct {
	TargetField string  `json:"targetField"`
	SourceField string  `json:"sourceField"`
	Confidence  float64 `json:"confidence"`
	// Reasoning says which signals produced the confidence, in words.
	Reasoning string `json:"reasoning"`
	Signals   struct {
		Name float64 `json:"name"`
		Type float64 `json:"type"`
		// Samples is the adjustment the sample formats made, -0.25..+0.08.
		Samples float64 `json:"samples"`
	} `json:"signals"`
	// Alternatives are the next best sources for the target, for a person to weigh.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	RefinedByAI  bool          `json:"refinedByAi,omitempty"`
}

// Alternative is a runner-up source for a target.
type Alternative struct {
	SourceField string  `json:"sourceField"`
	Confidence  float64 `json:"confidence"`
}

// FieldFormat is what a source field's sample values look like.
type FieldFormat struct {
	Field  string `json:"field"`
	Format string `json:"format"`
	// Matched of Seen non-empty samples have the format.
	Matched int `json:"matched"`
	Seen    int `json:"seen"`
}

// UnmappedTarget is a required target field no suggestion covers.
type UnmappedTarget struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
	// BestCandidate is the best source below the threshold or taken by another target.
	BestCandidate *Alternative `json:"bestCandidate,omitempty"`
}

// MappingResult is field_mapping_suggest's answer.
type MappingResult struct {
	SourceSystem            string           `json:"sourceSystem"`
	TargetSystem            string           `json:"targetSystem"`
	ConfidenceThreshold     float64          `json:"confidenceThreshold"`
	Suggestions             []Suggestion     `json:"suggestions"`
	UnmappedRequiredTargets []UnmappedTarget `json:"unmappedRequiredTargets"`
	UnmappedTargets         []string         `json:"unmappedTargets"`
	UnmappedSources         []string         `json:"unmappedSources"`
	Coverage                struct {
		Targets         int `json:"targets"`
		Mapped          int `json:"mapped"`
		RequiredTargets int `json:"requiredTargets"`
		RequiredMapped  int `json:"requiredMapped"`
	} `json:"coverage"`
	// SampleData reports what the samples were used for and what sensitive data they held;
	// no sample value is ever part of the answer.
	SampleData struct {
		Records int `json:"records"`
		// Formats names the dominant format of each source field's samples (a list, so
		// that a field named like a secret does not get its format taken for one).
		Formats  []FieldFormat `json:"formats"`
		Findings []Finding     `json:"findings"`
		Counts   []TypeCount   `json:"counts"`
	} `json:"sampleData"`
	AIRefinement *AIRefinement `json:"aiRefinement,omitempty"`
}

func (c *Catalog) fieldMappingSuggest(call *toolCall, raw json.RawMessage) (any, error) {
	var args mappingArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if err := checkMappingArgs(args); err != nil {
		return nil, err
	}
	if c.Scanner == nil {
		return nil, unavailable("field mapping", errors.New("no DLP scanner configured"))
	}
	threshold := DefaultConfidenceThreshold
	if args.ConfidenceThreshold != nil {
		threshold = *args.ConfidenceThreshold
	}
	m := newMapper(args)
	refinement := &AIRefinement{Requested: wantsRefinement(call.meta)}
	if refinement.Requested {
		c.refine(call, m, refinement)
	}
	out := m.result(threshold)
	out.SourceSystem, out.TargetSystem = args.SourceSystem, args.TargetSystem
	if refinement.Requested {
		out.AIRefinement = refinement
	}
	out.SampleData.Records = len(args.SampleData)
	out.SampleData.Findings, out.SampleData.Counts = []Finding{}, []TypeCount{}
	if len(args.SampleData) > 0 {
		doc, err := json.Marshal(args.SampleData)
		if err != nil {
			return nil, err
		}
		res, err := c.Scanner.ScanJSON(dlp.Record, doc)
		if err != nil {
			return nil, fmt.Errorf("DLP scan of sampleData: %w", err)
		}
		out.SampleData.Findings, out.SampleData.Counts = findingsOf(res), countsOf(res)
		c.auditScan(call, res)
	}
	call.details["sourceFields"] = len(args.SourceFields)
	call.details["targetFields"] = len(args.TargetFields)
	call.details["suggestions"] = len(out.Suggestions)
	call.details["threshold"] = threshold
	if refinement.Requested {
		call.details["aiRefinement"] = refinement.Used
	}
	return out, nil
}

func checkMappingArgs(args mappingArgs) error {
	var errs argumentErrors
	for _, list := range []struct {
		name   string
		fields []FieldSpec
	}{{"sourceFields", args.SourceFields}, {"targetFields", args.TargetFields}} {
		switch {
		case len(list.fields) == 0:
			errs = append(errs, httpapi.FieldError{Field: list.name, Message: "must list at least one field"})
		case len(list.fields) > maxMappingFields:
			errs = append(errs, httpapi.FieldError{Field: list.name, Message: fmt.Sprintf("must list at most %d fields", maxMappingFields)})
		}
		seen := map[string]bool{}
		for i, f := range list.fields {
			name := strings.TrimSpace(f.Name)
			switch {
			case name == "":
				errs = append(errs, httpapi.FieldError{Field: fmt.Sprintf("%s[%d].name", list.name, i), Message: "must not be empty"})
			case seen[name]:
				errs = append(errs, httpapi.FieldError{Field: fmt.Sprintf("%s[%d].name", list.name, i), Message: "repeats an earlier field's name; names must be unique"})
			}
			seen[name] = true
		}
	}
	if len(args.SampleData) > maxSampleRecords {
		errs = append(errs, httpapi.FieldError{Field: "sampleData", Message: fmt.Sprintf("must hold at most %d records", maxSampleRecords)})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// analyzedField is a field read for matching. Sample values stay in here, in memory, for
// the call; only their formats are ever reported.
type analyzedField struct {
	spec        FieldSpec
	name        fieldName
	descConcept string
	class       string
	samples     sampleFormat
	values      []any
}

func (f analyzedField) concept() (string, bool) {
	if f.name.concept != "" {
		return f.name.concept, false
	}
	return f.descConcept, f.descConcept != ""
}

// candidate is one scored (source, target) pair.
type candidate struct {
	source, target int
	name, typ      float64
	evidence       float64
	score          float64
	reasons        []string
	refined        bool
}

type mapper struct {
	sources, targets []analyzedField
	// cands[t] are the candidates of target t, best first.
	cands [][]candidate
}

func newMapper(args mappingArgs) *mapper {
	m := &mapper{}
	for _, f := range args.SourceFields {
		af := analyze(f)
		af.values = sampleValues(args.SampleData, f.Name)
		af.samples = dominantFormat(af.values)
		m.sources = append(m.sources, af)
	}
	for _, f := range args.TargetFields {
		m.targets = append(m.targets, analyze(f))
	}
	m.cands = make([][]candidate, len(m.targets))
	for ti := range m.targets {
		for si := range m.sources {
			if c := m.score(si, ti); c.score >= minCandidateScore {
				m.cands[ti] = append(m.cands[ti], c)
			}
		}
		m.sort(ti)
	}
	return m
}

func (m *mapper) sort(ti int) {
	slices.SortStableFunc(m.cands[ti], func(a, b candidate) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if a.name != b.name {
			if a.name > b.name {
				return -1
			}
			return 1
		}
		return a.source - b.source
	})
}

func analyze(f FieldSpec) analyzedField {
	af := analyzedField{spec: f, name: readName(f.Name), class: typeClass(f.Type)}
	if af.name.concept == "" && f.Description != "" {
		af.descConcept = readDescription(f.Description)
	}
	return af
}

// sampleValues collects the values of field in the sample records; a dotted name reaches
// into nested objects when no top-level key has the full name.
func sampleValues(records []map[string]any, field string) []any {
	var out []any
	for _, rec := range records {
		v, ok := rec[field]
		if !ok && strings.Contains(field, ".") {
			v, ok = dig(rec, strings.Split(field, "."))
		}
		if ok && v != nil {
			out = append(out, v)
		}
	}
	return out
}

func dig(v any, path []string) (any, bool) {
	for _, p := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// score rates source si for target ti: the name signal weighted by type compatibility,
// adjusted by what the samples show.
func (m *mapper) score(si, ti int) candidate {
	s, t := m.sources[si], m.targets[ti]
	c := candidate{source: si, target: ti}
	var why string
	c.name, why = nameSimilarity(s, t)
	c.reasons = append(c.reasons, why)
	c.typ = typeCompatibility(s.class, t.class)
	tc, _ := t.concept()
	accepts := acceptedFormats(tc, t.class)
	if f := s.samples.format; f != "" && len(accepts) > 0 {
		share := fmt.Sprintf("%d/%d", s.samples.matched, s.samples.seen)
		switch {
		case slices.Contains(accepts, f):
			c.evidence = 0.08
			why := fmt.Sprintf("samples are %s (%s), as %s expects", formatWords[f], share, t.spec.Name)
			if c.name < 0.4 && rescuing[f] {
				// Formats this specific say what the field holds even when its name does not.
				c.name = 0.55
				c.reasons[0] = "names differ, but " + why
			} else {
				c.reasons = append(c.reasons, why)
			}
		case distinctive[f]:
			c.evidence = -0.25
			c.reasons = append(c.reasons, fmt.Sprintf("samples are %s (%s), which %s does not hold", formatWords[f], share, t.spec.Name))
		case allDistinctive(accepts):
			c.evidence = -0.15
			c.reasons = append(c.reasons, fmt.Sprintf("samples are %s (%s), not %s", formatWords[f], share, formatWords[accepts[0]]))
		}
	}
	c.reasons = append(c.reasons, typeReason(s, t, c.typ))
	c.score = clamp(c.name*(0.55+0.45*c.typ)+c.evidence, 0, 0.99)
	return c
}

func allDistinctive(formats []string) bool {
	for _, f := range formats {
		if !distinctive[f] {
			return false
		}
	}
	return true
}

func acceptedFormats(concept, class string) []string {
	var out []string
	if c := conceptByID[concept]; c != nil {
		out = append(out, c.accepts...)
	}
	for _, f := range typeAccepts[class] {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func typeReason(s, t analyzedField, compat float64) string {
	st, tt := s.class, t.class
	if st == typeUnknown {
		st = strings.ToLower(s.spec.Type)
	}
	if tt == typeUnknown {
		tt = strings.ToLower(t.spec.Type)
	}
	switch {
	case compat >= 1:
		return "types match (" + tt + ")"
	case compat >= 0.8:
		return fmt.Sprintf("types compatible (%s → %s)", st, tt)
	}
	return fmt.Sprintf("types differ (%s → %s), a conversion is needed", st, tt)
}

// nameSimilarity compares two names as concepts and qualifiers, falling back to their
// words when either names no known concept.
func nameSimilarity(s, t analyzedField) (float64, string) {
	a, b := s.name, t.name
	if len(a.tokens) > 0 && slices.Equal(a.tokens, b.tokens) {
		return 1, "names match after normalisation (" + strings.Join(a.tokens, " ") + ")"
	}
	ca, descA := s.concept()
	cb, descB := t.concept()
	if ca != "" && cb != "" {
		q, qwhy := qualifierAgreement(a.qualifiers, b.qualifiers)
		var base float64
		var why string
		switch {
		case ca == "record_id" && externalRef(t) || cb == "record_id" && externalRef(s):
			// A record's own bare id is what the other system keeps as its external
			// reference: the usual way two systems remember each other's records.
			base = 0.85
			why = fmt.Sprintf("%s is the record's own id, %s holds the other system's id", s.spec.Name, t.spec.Name)
			q, qwhy = 1, ""
		case ca == cb:
			base = 0.95 * q
			why = fmt.Sprintf("%s and %s both name %s", s.spec.Name, t.spec.Name, conceptWords(ca))
			if !slices.Equal(a.weak, b.weak) {
				base -= 0.02
			}
		case relatedness(ca, cb) > 0:
			base = relatedness(ca, cb) * q
			why = fmt.Sprintf("%s (%s) is close to %s (%s)", s.spec.Name, conceptWords(ca), t.spec.Name, conceptWords(cb))
		default:
			return 0.05, fmt.Sprintf("%s names %s, %s names %s", s.spec.Name, conceptWords(ca), t.spec.Name, conceptWords(cb))
		}
		if descA || descB {
			base *= 0.85
			why += " (read from the description)"
		}
		if qwhy != "" {
			why += "; " + qwhy
		}
		return base, why
	}
	d := tokenDice(significant(a), significant(b))
	if d == 0 {
		return 0, "names share no words"
	}
	return 0.85 * d, fmt.Sprintf("names share words (%.0f%% alike)", d*100)
}

// externalRef reports a field that holds another system's id for the record.
func externalRef(f analyzedField) bool {
	c, _ := f.concept()
	return c == "external_id" || slices.Contains(f.name.qualifiers, "external") &&
		(c == "order_number" || c == "customer_id" || c == "vendor_id" || c == "contact_id" || c == "record_id" ||
			c == "invoice_number" || c == "sku")
}

func conceptWords(id string) string { return strings.ReplaceAll(id, "_", " ") }

// qualifierAgreement compares the strong qualifiers: the same (or none on both sides) is
// full agreement; billing against shipping is nearly a contradiction.
func qualifierAgreement(a, b []string) (float64, string) {
	switch {
	case slices.Equal(a, b):
		return 1, ""
	case slices.Contains(a, "secondary") != slices.Contains(b, "secondary"):
		// "Address 2" must not take the primary address, nor phone2 the main phone.
		return 0.4, "only one side is a second instance (" + strings.Join(append(slices.Clone(a), b...), ", ") + ")"
	case len(a) == 0 || len(b) == 0:
		return 0.76, "qualified on one side only (" + strings.Join(append(slices.Clone(a), b...), ", ") + ")"
	}
	for _, q := range a {
		if slices.Contains(b, q) {
			return 0.63, fmt.Sprintf("qualifiers partly differ (%s vs %s)", strings.Join(a, " "), strings.Join(b, " "))
		}
	}
	return 0.27, fmt.Sprintf("qualifiers differ (%s vs %s)", strings.Join(a, " "), strings.Join(b, " "))
}

func significant(f fieldName) []string {
	var out []string
	for _, t := range f.tokens {
		if !weakWords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return f.tokens
	}
	return out
}

// tokenDice is the Dice coefficient of two word lists where words also match as a prefix
// of each other (cust/customer) or with a small typo, at a discount.
func tokenDice(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	var sum float64
	for _, x := range a {
		best := 0.0
		for _, y := range b {
			best = max(best, wordMatch(x, y))
		}
		sum += best
	}
	for _, y := range b {
		best := 0.0
		for _, x := range a {
			best = max(best, wordMatch(x, y))
		}
		sum += best
	}
	return sum / float64(len(a)+len(b))
}

func wordMatch(x, y string) float64 {
	switch {
	case x == y:
		return 1
	case len(x) >= 3 && len(y) >= 3 && (strings.HasPrefix(x, y) || strings.HasPrefix(y, x)) &&
		float64(min(len(x), len(y)))/float64(max(len(x), len(y))) >= 0.5:
		return 0.7
	case len(x) >= 5 && len(y) >= 5 && levenshtein(x, y) <= 1:
		return 0.7
	}
	return 0
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// assign picks at most one source per target and uses each source once: the pairs are
// taken best first, so a source goes to the target it fits best.
func (m *mapper) assign(threshold float64) map[int]candidate {
	var all []candidate
	for ti := range m.cands {
		for _, c := range m.cands[ti] {
			if round2(c.score) >= threshold {
				all = append(all, c)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b candidate) int {
		switch {
		case a.score != b.score:
			return cmpDesc(a.score, b.score)
		case a.name != b.name:
			return cmpDesc(a.name, b.name)
		case a.target != b.target:
			return a.target - b.target
		}
		return a.source - b.source
	})
	byTarget := map[int]candidate{}
	usedSource := map[int]bool{}
	for _, c := range all {
		if _, taken := byTarget[c.target]; taken || usedSource[c.source] {
			continue
		}
		byTarget[c.target] = c
		usedSource[c.source] = true
	}
	return byTarget
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}

func (m *mapper) result(threshold float64) *MappingResult {
	chosen := m.assign(threshold)
	out := &MappingResult{ConfidenceThreshold: threshold, Suggestions: []Suggestion{},
		UnmappedRequiredTargets: []UnmappedTarget{}, UnmappedTargets: []string{}, UnmappedSources: []string{}}
	out.SampleData.Formats = []FieldFormat{}
	usedSource := map[int]string{}
	for ti, t := range m.targets {
		out.Coverage.Targets++
		if t.spec.Required {
			out.Coverage.RequiredTargets++
		}
		c, ok := chosen[ti]
		if !ok {
			out.UnmappedTargets = append(out.UnmappedTargets, t.spec.Name)
			continue
		}
		usedSource[c.source] = t.spec.Name
		out.Coverage.Mapped++
		if t.spec.Required {
			out.Coverage.RequiredMapped++
		}
		s := Suggestion{TargetField: t.spec.Name, SourceField: m.sources[c.source].spec.Name,
			Confidence: round2(c.score), Reasoning: strings.Join(c.reasons, "; "), RefinedByAI: c.refined}
		s.Signals.Name, s.Signals.Type, s.Signals.Samples = round2(c.name), round2(c.typ), round2(c.evidence)
		for _, alt := range m.cands[ti] {
			if alt.source != c.source && alt.score >= 0.3 && len(s.Alternatives) < 2 {
				s.Alternatives = append(s.Alternatives, Alternative{m.sources[alt.source].spec.Name, round2(alt.score)})
			}
		}
		out.Suggestions = append(out.Suggestions, s)
	}
	for ti, t := range m.targets {
		if _, ok := chosen[ti]; ok || !t.spec.Required {
			continue
		}
		u := UnmappedTarget{Name: t.spec.Name, Type: t.spec.Type,
			Reason: fmt.Sprintf("no source field reached the confidence threshold %.2f", threshold)}
		if len(m.cands[ti]) > 0 && m.cands[ti][0].score >= 0.3 {
			best := m.cands[ti][0]
			u.BestCandidate = &Alternative{m.sources[best.source].spec.Name, round2(best.score)}
			if other, taken := usedSource[best.source]; taken {
				u.Reason = fmt.Sprintf("its best source %s fits %s better", m.sources[best.source].spec.Name, other)
			}
		}
		out.UnmappedRequiredTargets = append(out.UnmappedRequiredTargets, u)
	}
	for si, s := range m.sources {
		if _, ok := usedSource[si]; !ok {
			out.UnmappedSources = append(out.UnmappedSources, s.spec.Name)
		}
		if s.samples.format != "" {
			out.SampleData.Formats = append(out.SampleData.Formats, FieldFormat{s.spec.Name, formatWords[s.samples.format],
				s.samples.matched, s.samples.seen})
		}
	}
	return out
}
