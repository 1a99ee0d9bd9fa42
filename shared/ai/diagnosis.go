package ai

import (
	"encoding/json"
	"slices"
)

// ErrorClass is what kind of failure a sync error is. The class decides the way out: the
// retryable classes go back to the queue, value and missing get a field fix, permission and
// reference need a person, duplicate links to the existing record, too_large and parse
// need the request changed. Each class is defined so that a label can be argued from the
// error's text alone (issue 27); every error gets exactly one, and an error no rule
// recognises gets value at the lowest confidence, so a person looks at it.
type ErrorClass string

// Error classes.
const (
	// ClassConnection: no usable answer from the target: refused, reset, DNS, TLS, a socket
	// or read time-out, or a gateway's 502/504 saying it could not reach the target in time.
	ClassConnection ErrorClass = "connection"
	// ClassIntermittent: the target answered that it failed for a passing reason: 500/503
	// with "try again", lock or concurrency conflicts, a record being edited, deadlocks.
	ClassIntermittent ErrorClass = "intermittent"
	// ClassRateLimit: any request, concurrency or governance quota, however it is worded
	// and whatever status carries it (429, 403, 503, a SOAP fault).
	ClassRateLimit ErrorClass = "rate_limit"
	// ClassTooLarge: a request, batch, id list, file, page or payload over a size or count
	// limit (not one field's value being too long: that is value).
	ClassTooLarge ErrorClass = "too_large"
	// ClassParse: the body could not be read: malformed JSON/XML, wrong media type,
	// encoding, unexpected token or node.
	ClassParse ErrorClass = "parse"
	// ClassMissing: a required field or value absent, however the framework says it.
	ClassMissing ErrorClass = "missing"
	// ClassValue: a field's value invalid for the target: format, length, range, not
	// allowed for the record's context (closed periods and disallowed currencies included).
	ClassValue ErrorClass = "value"
	// ClassReference: a value that should point to another record does not: unknown,
	// inactive, blocked, deleted, a malformed id, the wrong type of record.
	ClassReference ErrorClass = "reference"
	// ClassDuplicate: the record or a unique key of it already exists.
	ClassDuplicate ErrorClass = "duplicate"
	// ClassPermission: the caller is not allowed: role, scope, field-level security,
	// expired or revoked credentials.
	ClassPermission ErrorClass = "permission"
)

var classes = []ErrorClass{
	ClassValue, ClassMissing, ClassReference, ClassDuplicate, ClassPermission,
	ClassConnection, ClassIntermittent, ClassRateLimit, ClassTooLarge, ClassParse,
}

// Classes lists every error class, in the order prompts and documentation present them.
func Classes() []ErrorClass { return slices.Clone(classes) }

// Valid reports whether c is one of Classes.
func (c ErrorClass) Valid() bool { return slices.Contains(classes, c) }

// Retryable reports whether the failure is transient: repeating the same request later
// may succeed, so the worker retries through the queue instead of proposing a fix.
func (c ErrorClass) Retryable() bool {
	switch c {
	case ClassConnection, ClassIntermittent, ClassRateLimit:
		return true
	}
	return false
}

// FieldChange is one proposed change to the failed record's payload.
type FieldChange struct {
	// Path is a dotted path into the payload: "shipcountry", "shipTo.countryCode",
	// "items[0].sku". A key that itself contains '.', '[' or ']' is written ["key"].
	Path string `json:"path"`
	// Before is the payload's value at Path, nil when the field is absent.
	Before any `json:"before"`
	// After is the proposed value.
	After any `json:"after"`
}

// Diagnosis is the AI's proposal for one sync error.
type Diagnosis struct {
	Class     ErrorClass `json:"class"`
	Retryable bool       `json:"retryable"`
	// Summary is one sentence for the operator queue.
	Summary string `json:"summary"`
	// Fix is empty when no change can be derived (and always for retryable classes).
	Fix       []FieldChange `json:"fix"`
	Rationale string        `json:"rationale"`
	// Confidence in [0, 1] comes from the provider's quality assessment of the diagnosis.
	Confidence float64 `json:"confidence"`
}

// DiagnosisRequest is everything a provider may read about one sync error. The worker
// builds it from the claim's record; Governed anonymizes it before any provider sees it.
type DiagnosisRequest struct {
	RecordType     string `json:"recordType"`
	RecordID       string `json:"recordId"`
	ErrorCode      string `json:"errorCode"`
	Message        string `json:"message"`
	Integration    string `json:"integration,omitempty"`
	ExternalSystem string `json:"externalSystem,omitempty"`
	// ExternalVendor is the product ExternalSystem is when it names one of the service's
	// connector systems ("crm" is Salesforce); empty otherwise.
	ExternalVendor string `json:"externalVendor,omitempty"`
	// HostSystem is the product of the host ERP the error was recorded in and posted
	// from ("NetSuite"); empty for an error that did not come through it (a flow's
	// failed write). A code is cited by the catalogues of these systems only.
	HostSystem string `json:"hostSystem,omitempty"`
	Direction  string `json:"direction,omitempty"`
	// Payload is the record data that failed, a JSON object (or empty).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Context is what else the host sent about the failure, a JSON object (or empty).
	Context json.RawMessage `json:"context,omitempty"`
}

// ChatMessage is one turn of a conversation.
type ChatMessage struct {
	// Role is "system", "user" or "assistant".
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ChatRequest is a free-form conversation, for assistants in the operator surfaces.
type ChatRequest struct {
	Messages []ChatMessage `json:"messages"`
}

// ChatResponse is the model's answer.
type ChatResponse struct {
	Content string `json:"content"`
}

// Usage is what one provider call consumed.
type Usage struct {
	InputTokens  int    `json:"inputTokens"`
	OutputTokens int    `json:"outputTokens"`
	Model        string `json:"model"`
	// Reasoning is, for the trace only, how the provider reached its answer (the rules'
	// evidence, weights and scores): an engineer's view, kept out of the operator's
	// rationale. Empty for model providers.
	Reasoning json.RawMessage `json:"-"`
	// SelfAssessed marks a suggestion that carries the model's own confidence, asked in
	// the same call: Governed then makes no second (assessQuality) call.
	SelfAssessed bool `json:"-"`
}
