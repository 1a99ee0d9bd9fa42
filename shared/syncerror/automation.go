package syncerror

import "time"

// Automation outcomes. A shadow record waits ("") for people's decision and then says how
// it compares: same fix, edited, rejected. An enforced one says what came of applying.
const (
	OutcomeSame     = "same"
	OutcomeEdited   = "edited"
	OutcomeRejected = "rejected"
	OutcomeApplied  = "applied"
	OutcomeFailed   = "failed"
	OutcomeCapped   = "capped"
	OutcomeOff      = "auto_apply_off"
	OutcomeReverted = "reverted"
)

// NoAutomation is a Proposal's Automation when no auto rule matched it at diagnosis: the
// row has no automation record, so a decision on it reads none.
const NoAutomation = "none"

// Automation is what an auto rule did (enforce) or would have done (shadow) for a row.
type Automation struct {
	ClaimID string `json:"claimId"`
	// ErrorID, RecordType and RecordID name the row as people know it (the listing fills
	// them in for records stored before they were kept here).
	ErrorID    string        `json:"errorId,omitempty"`
	RecordType string        `json:"recordType,omitempty"`
	RecordID   string        `json:"recordId,omitempty"`
	RuleID     string        `json:"ruleId"`
	Mode       string        `json:"mode"`
	Class      string        `json:"class"`
	Fix        []FieldChange `json:"fix"`
	At         time.Time     `json:"at"`
	Outcome    string        `json:"outcome"`
	Detail     string        `json:"detail,omitempty"`
	DecidedBy  string        `json:"decidedBy,omitempty"`
	DecidedAt  *time.Time    `json:"decidedAt,omitempty"`
}

// DocSort lists automation records by when the rule acted, newest first (docSorter; the
// automation room orders records stored before it with it too).
func (a Automation) DocSort() time.Time { return a.At }
