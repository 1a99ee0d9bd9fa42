package ai

// What a governed inference records, and where: its trace, its costs and its audit
// events, and the scanner its prompts pass. Governed (governed.go) writes them.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
)

// PromptScanner anonymizes what a provider is about to read. It is implemented by an
// adapter over the DLP scanner with the AI-prompt policy (ARCHITECTURE.md "DLP").
type PromptScanner interface {
	// Anonymize returns doc (a JSON object) with every finding replaced by a typed
	// placeholder, and the finding counts per type. It must fail closed: an error means
	// nothing may be sent.
	//
	// Placeholders are upper-case type names in square brackets, optionally numbered:
	// "[EMAIL]", "[CARD_NUMBER_2]". Governed recognises them in proposed fixes and
	// withholds those changes, since writing a placeholder back would destroy data.
	Anonymize(ctx context.Context, doc []byte) (anonymized []byte, counts map[string]int, err error)
	// RedactText applies the at-rest (record) policy to plain text: a provider's error
	// text, which may quote what it was sent, before a trace keeps it.
	RedactText(ctx context.Context, text string) (string, error)
}

// TraceStep is one provider call of an inference.
type TraceStep struct {
	Operation    string          `json:"operation"`
	Model        string          `json:"model"`
	Response     json.RawMessage `json:"response,omitempty"`
	InputTokens  int             `json:"inputTokens"`
	OutputTokens int             `json:"outputTokens"`
	StartedAt    time.Time       `json:"startedAt"`
	Duration     time.Duration   `json:"duration"`
	Error        string          `json:"error,omitempty"`
}

// Trace is the reasoning trace of one governed inference: what was sent, what came back
// from each step, and how it ended. Everything in it was anonymized before it was sent,
// so it holds no value the DLP scan found.
type Trace struct {
	TenantID    string            `json:"tenantId"`
	InferenceID string            `json:"inferenceId"`
	ClaimID     string            `json:"claimId,omitempty"`
	Operation   string            `json:"operation"`
	Provider    string            `json:"provider"`
	Model       string            `json:"model"`
	Identity    identity.Identity `json:"identity"`
	// Prompt is exactly the document the provider's requests were built from, already
	// anonymized; empty when nothing was sent.
	Prompt json.RawMessage `json:"prompt,omitempty"`
	// Response is the final result (the diagnosis or the chat answer).
	Response    json.RawMessage `json:"response,omitempty"`
	Steps       []TraceStep     `json:"steps"`
	DLPFindings map[string]int  `json:"dlpFindings,omitempty"`
	StartedAt   time.Time       `json:"startedAt"`
	Duration    time.Duration   `json:"duration"`
	Error       string          `json:"error,omitempty"`
}

// CostRecord is the cost of one provider call. A Diagnose makes two calls (suggest and
// assessQuality) and so writes two records under one InferenceID: per call, because the
// two may be priced differently and because a failed inference still pays for the calls
// that returned.
type CostRecord struct {
	TenantID    string            `json:"tenantId"`
	InferenceID string            `json:"inferenceId"`
	Operation   string            `json:"operation"`
	Provider    string            `json:"provider"`
	Model       string            `json:"model"`
	Identity    identity.Identity `json:"identity"`
	InputTokens int               `json:"inputTokens"`
	// OutputTokens are the model's tokens.
	OutputTokens int     `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
	// Priced is false when the model is not in the price table: CostUSD is then 0 and the
	// record reads "unpriced", not "free".
	Priced bool      `json:"priced"`
	At     time.Time `json:"at"`
}

// TraceStore persists reasoning traces. Implementations make puts idempotent on
// (TenantID, InferenceID, Operation), so a redelivered message rewrites its own trace.
type TraceStore interface {
	PutTrace(ctx context.Context, t Trace) error
}

// CostStore persists cost records, idempotent on (TenantID, InferenceID, Operation).
type CostStore interface {
	PutCost(ctx context.Context, c CostRecord) error
}

// Auditor writes audit records; the audit package adapts AuditEvent to its log.
type Auditor interface {
	Audit(ctx context.Context, e AuditEvent) error
}

// AuditEvent is one governance-relevant action. Details never hold a value the DLP scan
// found: only counts, ids, names and numbers.
type AuditEvent struct {
	Identity   identity.Identity
	ActionType string
	ActionKey  string
	Result     string
	Resource   string
	Details    map[string]any
}

// Audit vocabulary (ARCHITECTURE.md "Audit").
const (
	ActionTypeAI  = "ai"
	ActionTypeDLP = "dlp"

	ActionKeyInference = "ai.inference"
	ActionKeyDLPScan   = "dlp.scan"

	ResultSuccess = "success"
	ResultFailure = "failure"
)
