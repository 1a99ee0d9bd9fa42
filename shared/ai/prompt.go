package ai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// suggestSystemPrompt instructs a model to diagnose. It lists the classes with their
// meaning so that a model's class is comparable with the rules', and asks for JSON only
// so that the answer can be validated rather than interpreted.
var suggestSystemPrompt = func() string {
	var b strings.Builder
	b.WriteString(`You diagnose failed record synchronisations between ERP, CRM and shipping systems.
The user message is a JSON object describing one sync error: recordType, recordId, errorCode, message, integration, externalSystem, externalVendor (the product externalSystem is, when known), hostSystem (the host ERP the error was recorded in, when it came through one), direction, payload (the record data that failed) and context.
Values in square brackets such as [EMAIL] or [CARD_NUMBER_1] were anonymized; never use them as a proposed value.

Answer with one JSON object and nothing else:
{"class": string, "retryable": boolean, "summary": string, "fix": [{"path": string, "before": any, "after": any}], "rationale": string, "confidence": number}

class is exactly one of:
`)
	for _, c := range classes {
		fmt.Fprintf(&b, "- %s: %s\n", c, classMeaning[c])
	}
	b.WriteString(`retryable is true only for connection, intermittent and rate_limit.
fix lists concrete changes to the payload that would make the sync succeed: path is a dotted path into the payload (items[0].sku for arrays), before is the current value (null if absent), after is the new value. Propose only values that follow from the payload, the context or the error message; when none does, or the class is retryable, fix is [].
summary is one sentence for an operator. rationale is written for the operator too, in a few plain sentences: what is wrong, the evidence that decided the class (the error code, the HTTP status or the message's own words, and what the vendor documents it to mean), what to change and why, and whether retrying can help; no internal scores.
Cite a vendor's documentation only for the systems the error is about (externalSystem or externalVendor, and hostSystem); a code those systems do not use may mean something else elsewhere, so say what it generally means without naming another vendor.
catalogue, when present, is what those vendors' references document for the codes in this error (code, class, meaning, source): it outweighs the message's wording.
confidence is between 0 and 1: how likely the class is right and applying the fix would make the sync succeed without damaging data.`)
	return b.String()
}()

var classMeaning = map[ErrorClass]string{
	ClassConnection:   "no usable answer from the target: refused, reset, DNS, TLS, a socket or read time-out, or a gateway's 502/504 saying it could not reach the target in time",
	ClassIntermittent: "the target answered that it failed for a passing reason: 500/503 with try again, lock or concurrency conflicts, record being edited, deadlocks",
	ClassRateLimit:    "any request, concurrency or governance quota, however it is worded and whatever status carries it (429, 403, 503, a SOAP fault)",
	ClassTooLarge:     "a request, batch, id list, file, page or payload over a size or count limit (one field's value being too long is value)",
	ClassParse:        "the body could not be read: malformed JSON/XML, wrong media type, encoding, unexpected token or node",
	ClassMissing:      "a required field or value is absent, however the framework says it",
	ClassValue:        "a field's value is invalid for the target: format, length, range, not allowed for the record's context (closed periods and disallowed currencies included)",
	ClassReference:    "a value that should point to another record does not: unknown, inactive, blocked, deleted, malformed id, wrong type of record",
	ClassDuplicate:    "the record or one of its unique keys (such as the external id) already exists",
	ClassPermission:   "the caller is not allowed: role, scope, field-level security, expired or revoked credentials",
}

const assessSystemPrompt = `You review a proposed diagnosis of a failed record synchronisation.
The user message is a JSON object with "error" (the sync error: code, message, payload, context) and "diagnosis" (class, summary, fix, rationale).
Values in square brackets such as [EMAIL] were anonymized.
Judge whether the class is right and whether applying the fix would make the sync succeed without damaging data.
Answer with one JSON object and nothing else: {"confidence": number}, where confidence is between 0 and 1.`

// suggestUserPrompt is the request itself (Governed anonymized it already) with the
// vendor catalogue's entries for the codes it names: the excerpt, not the catalogue.
func suggestUserPrompt(req DiagnosisRequest) (string, error) {
	raw, err := json.Marshal(struct {
		DiagnosisRequest
		Catalogue []CatalogueEntry `json:"catalogue,omitempty"`
	}{req, CatalogueExcerpt(req)})
	return string(raw), err
}

// assessUserPrompt shows the reviewer the diagnosis without a confidence, which would
// anchor its judgement.
func assessUserPrompt(req DiagnosisRequest, d Diagnosis) (string, error) {
	type proposal struct {
		Class     ErrorClass    `json:"class"`
		Summary   string        `json:"summary"`
		Fix       []FieldChange `json:"fix"`
		Rationale string        `json:"rationale"`
	}
	raw, err := json.Marshal(struct {
		Error     DiagnosisRequest `json:"error"`
		Diagnosis proposal         `json:"diagnosis"`
	}{req, proposal{d.Class, d.Summary, d.Fix, d.Rationale}})
	return string(raw), err
}

// jsonObjectIn extracts the JSON object of a model's answer, tolerating the code fences
// and preambles local models add despite the instructions.
func jsonObjectIn(content string) ([]byte, bool) {
	s := strings.TrimSpace(content)
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return nil, false
	}
	raw := []byte(s[start : end+1])
	return raw, json.Valid(raw)
}

// parseSuggestion reads and validates a model's diagnosis. An answer that is not the
// asked-for object, or names a class that does not exist, is a permanent failure: asking
// the same model the same question again gives the same kind of answer.
func parseSuggestion(content string) (Diagnosis, error) {
	raw, ok := jsonObjectIn(content)
	if !ok {
		return Diagnosis{}, fmt.Errorf("model output is not a JSON object: %w", ErrPermanent)
	}
	var out struct {
		Class      string          `json:"class"`
		Retryable  *bool           `json:"retryable"`
		Summary    string          `json:"summary"`
		Fix        json.RawMessage `json:"fix"`
		Rationale  string          `json:"rationale"`
		Confidence json.RawMessage `json:"confidence"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return Diagnosis{}, fmt.Errorf("model output does not match the diagnosis shape: %v: %w", err, ErrPermanent)
	}
	class := ErrorClass(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(out.Class)), "-", "_"))
	if !class.Valid() {
		return Diagnosis{}, fmt.Errorf("model output names the unknown class %q: %w", out.Class, ErrPermanent)
	}
	d := Diagnosis{Class: class, Retryable: class.Retryable(), Summary: out.Summary, Rationale: out.Rationale}
	if t := bytes.TrimSpace(out.Fix); len(t) > 0 && string(t) != "null" {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		var fix []FieldChange
		if err := dec.Decode(&fix); err != nil {
			return Diagnosis{}, fmt.Errorf("model output has a malformed fix: %v: %w", err, ErrPermanent)
		}
		for _, c := range fix {
			if strings.TrimSpace(c.Path) == "" {
				return Diagnosis{}, fmt.Errorf("model output has a change without a path: %w", ErrPermanent)
			}
		}
		d.Fix = fix
	}
	if len(out.Confidence) > 0 && string(out.Confidence) != "null" {
		c, err := parseConfidence(`{"confidence":` + string(out.Confidence) + `}`)
		if err != nil {
			return Diagnosis{}, err
		}
		d.Confidence = c
	}
	return d, nil
}

// selfAssessed is the usage of a suggestion call, marked when its answer carried the
// model's confidence (parseSuggestion read one).
func selfAssessed(u Usage, content string) Usage {
	raw, _ := jsonObjectIn(content)
	var out struct {
		Confidence *float64 `json:"confidence"`
	}
	u.SelfAssessed = json.Unmarshal(raw, &out) == nil && out.Confidence != nil
	return u
}

// parseConfidence reads {"confidence": x}. A percentage (1 < x <= 100) is read as one,
// since models mix the two up; anything else outside [0, 1] is refused.
func parseConfidence(content string) (float64, error) {
	raw, ok := jsonObjectIn(content)
	if !ok {
		return 0, fmt.Errorf("model output is not a JSON object: %w", ErrPermanent)
	}
	var out struct {
		Confidence *float64 `json:"confidence"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Confidence == nil {
		return 0, fmt.Errorf("model output has no numeric confidence: %w", ErrPermanent)
	}
	c := *out.Confidence
	if c > 1 && c <= 100 {
		c /= 100
	}
	if math.IsNaN(c) || c < 0 || c > 1 {
		return 0, fmt.Errorf("model output has the confidence %v, outside [0, 1]: %w", *out.Confidence, ErrPermanent)
	}
	return c, nil
}
