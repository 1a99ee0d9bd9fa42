package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
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
		a.ExternalVendor == b.ExternalVendor && a.HostSystem == b.HostSystem && a.Direction == b.Direction &&
		bytes.Equal(a.Payload, b.Payload) && bytes.Equal(a.Context, b.Context)
}

func (p *rulesProvider) suggest(_ context.Context, _ *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	return p.analysisOf(req).diagnosis(), Usage{Model: RulesModel}, nil
}

// assessQuality re-derives the diagnosis and scores d by it: the rules' own proposal
// scores its certainty times its weakest change, and a diagnosis from elsewhere scores
// lower where the rules do not reproduce it.
func (p *rulesProvider) assessQuality(_ context.Context, _ *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	a := p.analysisOf(req)
	c := a.score(d)
	return c, Usage{Model: RulesModel, Reasoning: a.reasoning(c)}, nil
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
	c := classify(scope{}, "", last)
	kind := "not transient: it needs a data or configuration change"
	if c.class.Retryable() {
		kind = "transient: retrying later should succeed"
	}
	return ChatResponse{Content: fmt.Sprintf("Rule-based assessment: a %s error (%s). %s",
		c.class, kind, todoFor(c, "the target system"))}, Usage{Model: RulesModel}, nil
}

// proposal is one change with how firmly it follows and why.
type proposal struct {
	change FieldChange
	basis  float64
	reason string
}

type analysis struct {
	req       DiagnosisRequest
	scope     scope
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
	a := &analysis{req: req, scope: scopeOf(req), msg: readMessage(req.Message)}
	a.cls = classify(a.scope, req.ErrorCode, req.Message)
	var err error
	if a.doc, err = decodeObject(req.Payload); err != nil {
		a.doc = map[string]any{}
		a.notes = append(a.notes, "the payload is not a JSON object, so no field change can be derived")
	}
	a.nodes = flatten(a.doc)
	if c, err := decodeObject(req.Context); err == nil {
		a.ctxNodes = flatten(c)
	}
	if a.cls.class == ClassMissing && eitherOrInvalid().MatchString(a.msg.lower) {
		// "Missing or invalid X": when the record has X, it is invalid, not missing.
		if t := locate(a.msg, a.nodes); len(t) > 0 && t[0].score >= 2 && !isEmpty(t[0].value) {
			a.cls = classification{class: ClassValue, certainty: 0.6, scores: a.cls.scores, decidedBy: &evidence{kind: "wording", class: ClassValue,
				rule: "missing or invalid, and the record has the field", said: eitherOrInvalid().FindString(a.msg.lower), src: srcWording}}
		}
	}
	switch a.cls.class {
	case ClassValue, ClassParse, ClassReference:
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

var classPhrase = map[ErrorClass]string{
	ClassValue:        "%s rejected a field value",
	ClassMissing:      "a field %s requires is missing",
	ClassReference:    "it points to a record %s does not have or will not accept",
	ClassDuplicate:    "the record already exists in %s",
	ClassPermission:   "the integration user lacks a permission in %s",
	ClassConnection:   "the connection to %s failed",
	ClassIntermittent: "%s failed temporarily",
	ClassRateLimit:    "%s rate-limited the integration",
	ClassTooLarge:     "the request exceeds a size limit of %s",
	ClassParse:        "a message to or from %s could not be parsed",
}

func (a *analysis) diagnosis() Diagnosis {
	_, system := a.refuser()
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
	for _, p := range a.proposals {
		fix = append(fix, FieldChange{Path: p.change.Path, Before: cloneValue(p.change.Before), After: cloneValue(p.change.After)})
	}
	if len(fix) > 0 {
		var parts []string
		for _, c := range fix {
			parts = append(parts, fmt.Sprintf("set %s to %s", c.Path, showValue(c.After)))
		}
		summary += "; " + strings.Join(parts, ", ")
	}
	summary += "."
	return Diagnosis{
		Class:     a.cls.class,
		Retryable: a.cls.class.Retryable(),
		Summary:   summary,
		Fix:       fix,
		Rationale: a.rationale(fix),
	}
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
