package ai

// What a governed inference records, and where: its trace, its costs and its audit
// events, and the scanner its prompts pass. Governed (governed.go) writes them; when it
// writes the costs is here (storeCosts).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// paidUnstored reports whether a cost not yet stored was billed: a model's call, not the
// rules' (no tokens, no price), whose records wait for finish to be one write.
func (r *inference) paidUnstored() bool {
	for _, c := range r.costs[r.stored:] {
		if c.InputTokens > 0 || c.OutputTokens > 0 || c.CostUSD > 0 {
			return true
		}
	}
	return false
}

// storeCosts stores the cost records not yet stored, in one call. Each is idempotent, so
// after a failure all are written again.
func (r *inference) storeCosts(ctx context.Context) error {
	pending := r.costs[r.stored:]
	if len(pending) == 0 {
		return nil
	}
	if err := r.g.costs.PutCosts(ctx, slices.Clone(pending)); err != nil {
		return fmt.Errorf("costs: %w", err)
	}
	r.stored = len(r.costs)
	return nil
}

// TraceStore persists reasoning traces. Implementations make puts idempotent on
// (TenantID, InferenceID, Operation), so a redelivered message rewrites its own trace.
type TraceStore interface {
	PutTrace(ctx context.Context, t Trace) error
}

// CostStore persists cost records, idempotent on (TenantID, InferenceID, Operation): the
// first record of an operation stands. Governed hands it the records of one inference it
// has not yet stored at once, so a store billed per write stores them in one (DynamoDB: a
// rules diagnosis's two records, 1 WRU each, in one item of 1).
type CostStore interface {
	PutCosts(ctx context.Context, cs []CostRecord) error
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
