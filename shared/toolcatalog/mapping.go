package toolcatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// FieldSpec is a field object of field_mapping_suggest.
type FieldSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// UnmarshalJSON reads a field object by its exact member names, the ones the schema
// validated. A field object is open, so extra members pass unchecked, and encoding/json
// would take "Type" or "Required" into Type or Required: a call the schema accepted
// failed as internal_error ("Type": 5), or a "Name" replaced the name that was checked.
func (f *FieldSpec) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*f = FieldSpec{}
	for name, dst := range map[string]any{"name": &f.Name, "type": &f.Type, "description": &f.Description,
		"required": &f.Required} {
		if v, ok := m[name]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return err
			}
		}
	}
	return nil
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
	// Sample numbers keep their digits (json.Number): a float64 rounds a 19-digit card
	// number sent as a number to one that fails its checksum, so the DLP scans of
	// sampleData and of the refinement prompt missed it and its leading digits reached
	// the model unmasked.
	var args mappingArgs
	if err := jsonvalue.Unmarshal(raw, &args); err != nil {
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
