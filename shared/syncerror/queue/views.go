package queue

import (
	"context"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// Summary is a row in the queue listing.
type Summary struct {
	ID         string              `json:"id"`
	ErrorID    string              `json:"errorId"`
	RecordType string              `json:"recordType"`
	RecordID   string              `json:"recordId"`
	ErrorCode  string              `json:"errorCode"`
	Message    string              `json:"message"`
	Status     syncerror.Status    `json:"status"`
	Diagnosis  syncerror.Diagnosis `json:"diagnosis"`
	Class      string              `json:"class,omitempty"`
	Confidence *float64            `json:"confidence,omitempty"`
	ClaimedAt  time.Time           `json:"claimedAt"`
	// OccurredAt is when the error happened in its system (what the queue's Age counts
	// from); ExternalSystem is the system on the other side of the failed sync.
	OccurredAt     *time.Time `json:"occurredAt,omitempty"`
	ExternalSystem string     `json:"externalSystem,omitempty"`
	// System is the connector system ExternalSystem resolves to by the tenant's system
	// names ("erp2" for "Business Central"), else ExternalSystem itself (systems.go).
	System string `json:"system,omitempty"`
	// ApplyError is why the last write-back failed, on a row that is pending again: the
	// queue marks such rows apart from fresh ones.
	ApplyError string `json:"applyError,omitempty"`
	// Approval says, on a pending row, who may approve its fix and by which rule.
	Approval *policy.Decision `json:"approval,omitempty"`
	// Decider says who can approve the fix, for the viewer (Decision.Decider): you,
	// approver or two_approvers; absent where nobody decides now.
	Decider string `json:"decider,omitempty"`
	// Escalation is, on an escalated row, the escalate that made it so: who, when, why.
	Escalation *syncerror.HistoryEntry `json:"escalation,omitempty"`
	// Source is "learned" when the proposal comes from the tenant's knowledge.
	Source string `json:"source,omitempty"`
	syncerror.RetryView
	syncerror.TriageView
}

// Detail is one row as the operator sees it.
type Detail struct {
	Summary
	Error    syncerror.Record `json:"error"`
	Proposal *ProposalView    `json:"proposal"`
	// EditedFix is the operator's edit the row's write carries or carried, or the one a row
	// awaiting a decision keeps for its next approve (EditOf); EditKept says why it keeps
	// one. Any other row awaiting a decision has none: its approve writes the AI's fix
	// unless it sends one.
	EditedFix []syncerror.FieldChange `json:"editedFix,omitempty"`
	// EditKept is "held" (the write that carried the edit waits for an ownership approval;
	// approving again without a change sends it under the same key, which the released
	// approval lets through) or "unverified" (that write may have landed; approving again
	// sends it again); empty otherwise.
	EditKept string `json:"editKept,omitempty"`
	// CoApproval is, under a two_approvers rule, the round under way: an edit waiting for
	// its second approval, which supersedes a kept edit (EditedFix and EditKept are then
	// left out: no approve writes it), or approvals of the row's fix (DetailHandler).
	CoApproval *CoApprovalView `json:"coApproval,omitempty"`
	// FixKey names the fix an approve without an edit writes now (syncerror.ConfirmKey of
	// the row's fix, or of the edit waiting for its second approval): an approve sending
	// it writes that fix or nothing (409 fix_changed). Absent where no approve writes one.
	FixKey         string                   `json:"fixKey,omitempty"`
	WritesTo       *syncerror.WriteTarget   `json:"writesTo,omitempty"` // where an approve writes the fix ("Approve writes … to …")
	DiagnosisError string                   `json:"diagnosisError,omitempty"`
	Applied        *syncerror.AppliedWrite  `json:"applied,omitempty"`
	ApplyError     string                   `json:"applyError,omitempty"`
	History        []syncerror.HistoryEntry `json:"history"`
	// Attempts are the row's last retry attempts, oldest first, under its error as received.
	Attempts  []syncerror.RetryAttempt `json:"attempts"`
	Notes     []syncerror.Note         `json:"notes"`
	UpdatedAt time.Time                `json:"updatedAt"`
}

// ProposalView is the AI's proposal with its trace id.
type ProposalView struct {
	syncerror.Proposal
	TraceID string `json:"traceId"`
}

// Summarize is c as a listing shows it to the viewer of ctx (people.go names its people).
func (o *Service) Summarize(ctx context.Context, c syncerror.Claim) Summary {
	s := Summary{ID: c.ID, ErrorID: c.Record.ErrorID, RecordType: c.Record.RecordType, RecordID: c.Record.RecordID,
		ErrorCode: c.Record.ErrorCode, Message: o.Mask.SummaryMessage(c.Record.Message), Status: c.Status, Diagnosis: c.Diagnosis, ClaimedAt: c.ClaimedAt,
		ExternalSystem: c.Record.ExternalSystem, ApplyError: c.ApplyError, RetryView: syncerror.RetryViewOf(c), TriageView: o.peopleFor(ctx).triage(c.Triage)}
	if !c.Record.OccurredAt.IsZero() {
		at := c.Record.OccurredAt.UTC()
		s.OccurredAt = &at
	}
	if c.Proposal != nil {
		s.Class = c.Proposal.Class
		conf := c.Proposal.Confidence
		s.Confidence = &conf
		s.Source = c.Proposal.Source
	}
	return s
}

// Detail is c as its detail shows it to the viewer of ctx (people.go names its people).
func (o *Service) Detail(ctx context.Context, c syncerror.Claim) Detail {
	p := o.peopleFor(ctx)
	d := Detail{Summary: o.Summarize(ctx, c), Error: o.Mask.Show(c.Record, syncerror.FixOf(c)), EditedFix: syncerror.EditOf(c), DiagnosisError: c.DiagnosisError,
		Applied: c.Applied, ApplyError: c.ApplyError, History: p.history(c.History), Attempts: p.attempts(c.Retry.Log), UpdatedAt: c.UpdatedAt}
	d.EditKept = editKeptName(c)
	if d.Attempts == nil {
		d.Attempts = []syncerror.RetryAttempt{}
	}
	if d.History == nil {
		d.History = []syncerror.HistoryEntry{}
	}
	if o.Fields != nil {
		t := o.Fields.WriteTarget(c)
		d.WritesTo = &t
	}
	if d.Notes = p.notes(c.Triage.Notes); d.Notes == nil {
		d.Notes = []syncerror.Note{}
	}
	if c.Proposal != nil {
		d.Proposal = &ProposalView{Proposal: *c.Proposal, TraceID: c.Proposal.InferenceID}
	}
	d.FixKey = fixKey(c, syncerror.FixOf(c))
	return d
}

// fixKey is the key an approve without an edit confirms fix under (its fixKey), on a row
// such an approve may write it to; "" elsewhere, and for no fix.
func fixKey(c syncerror.Claim, fix []syncerror.FieldChange) string {
	if !syncerror.Decidable(c.Status) || c.Diagnosis != syncerror.DiagnosisReady || c.Proposal == nil || c.Applied != nil || len(fix) == 0 {
		return ""
	}
	k, _ := syncerror.ConfirmKey(c.Proposal.Class, fix)
	return k
}
