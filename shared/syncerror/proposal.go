package syncerror

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// FieldChange is one change a fix makes to the failed record's payload.
type FieldChange struct {
	Path   string `json:"path"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// Proposal is the diagnosis held on a row until an operator decides: the error class, the
// fix as field changes, the rationale and how confident the pipeline is. It is built from
// DLP-anonymized input, so it never holds a secret or personal datum of the original.
type Proposal struct {
	Class       string        `json:"class"`
	Retryable   bool          `json:"retryable"`
	Summary     string        `json:"summary"`
	Fix         []FieldChange `json:"fix"`
	Rationale   string        `json:"rationale"`
	Confidence  float64       `json:"confidence"`
	InferenceID string        `json:"inferenceId"`
	Provider    string        `json:"provider"`
	Model       string        `json:"model"`
	DiagnosedAt time.Time     `json:"diagnosedAt"`
	// Source is "learned" when the fix comes from the tenant's knowledge (Learned says
	// whose decisions), empty for the AI's diagnosis.
	Source  string      `json:"source,omitempty"`
	Learned *Provenance `json:"learned,omitempty"`
	// Automation is the mode of the auto rule that matched the proposal when it was
	// stored (an automation record was made), NoAutomation when none did, and empty when it
	// is not known (the policy was unreadable, or the proposal predates the field).
	Automation string `json:"automation,omitempty"`
}

// Diagnoser produces a proposal for a claim. It returns an error wrapping ErrPermanent
// when retrying cannot help; any other error is retried through the queue.
type Diagnoser interface {
	Diagnose(ctx context.Context, c Claim, inferenceID string) (Proposal, error)
}

// ErrPermanent marks a diagnosis failure that retrying cannot fix.
var ErrPermanent = errors.New("permanent diagnosis failure")

// PermanentError is a permanent failure with a reason fit for an operator to read (no
// payload data, no internal detail).
type PermanentError struct{ Reason string }

func (e *PermanentError) Error() string { return "diagnosis failed: " + e.Reason }

// Unwrap makes errors.Is(err, ErrPermanent) hold.
func (e *PermanentError) Unwrap() error { return ErrPermanent }

// InferenceID names one diagnosis attempt of a claim; trace and cost records are keyed by
// it, so a replayed attempt cannot record twice.
func InferenceID(claimID string, attempt int) string {
	return claimID + "-a" + strconv.Itoa(attempt)
}

// Provenance tells where a learned proposal came from.
type Provenance struct {
	KnowledgeIDs   []string   `json:"knowledgeIds"`
	Approvals      int        `json:"approvals"`
	Rejections     int        `json:"rejections"`
	People         int        `json:"people"`
	LastApprovedBy string     `json:"lastApprovedBy,omitempty"`
	LastApprovedAt *time.Time `json:"lastApprovedAt,omitempty"`
}

// SourceLearned marks a proposal built from the tenant's knowledge, with no AI call.
const SourceLearned = "learned"
