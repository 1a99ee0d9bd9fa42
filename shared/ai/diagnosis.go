package ai

import (
	"encoding/json"
	"slices"
)

// ErrorClass is what kind of failure a sync error is. The operator queue shows it, and
// Retryable decides whether the worker retries instead of proposing a fix.
type ErrorClass string

// Error classes (ARCHITECTURE.md "AI").
const (
	// ClassValue: a field holds a value the target system rejects (format, code, length,
	// enum, type).
	ClassValue ErrorClass = "value"
	// ClassMissing: a required field is absent or empty.
	ClassMissing ErrorClass = "missing"
	// ClassReference: the record points at a record that does not exist (customer, item,
	// vendor, account).
	ClassReference ErrorClass = "reference"
	// ClassDuplicate: the record, or a unique key of it such as the external id, exists
	// already.
	ClassDuplicate ErrorClass = "duplicate"
	// ClassPermission: the integration's credentials or role do not allow the operation.
	ClassPermission ErrorClass = "permission"
	// ClassConnection: the request never got an answer (reset, refused, DNS, TLS).
	ClassConnection ErrorClass = "connection"
	// ClassIntermittent: the target answered with a temporary failure (timeout, 5xx,
	// record locked or changed concurrently).
	ClassIntermittent ErrorClass = "intermittent"
	// ClassRateLimit: the target throttled the integration.
	ClassRateLimit ErrorClass = "rate_limit"
	// ClassTooLarge: the request as a whole exceeds a size or line-count limit.
	ClassTooLarge ErrorClass = "too_large"
	// ClassParse: a message could not be parsed (malformed JSON or XML, a value of the
	// wrong type for the deserializer, an HTML error page where JSON was expected).
	ClassParse ErrorClass = "parse"
	// ClassBusinessRule: the data is well-formed but a rule of the target system refuses
	// it: a closed accounting period, an inactive item or customer, a currency the
	// subsidiary does not allow, a customer outside the subsidiary. It is kept apart from
	// value because the fix is a business decision (another period, another item), which
	// operators review differently from a format correction.
	ClassBusinessRule ErrorClass = "business_rule"
)

var classes = []ErrorClass{
	ClassValue, ClassMissing, ClassReference, ClassDuplicate, ClassPermission,
	ClassConnection, ClassIntermittent, ClassRateLimit, ClassTooLarge, ClassParse,
	ClassBusinessRule,
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
	Direction      string `json:"direction,omitempty"`
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
}
