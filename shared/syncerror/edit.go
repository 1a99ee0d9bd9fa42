package syncerror

// The operator's edit of the AI's fix (Claim.EditedFix), kept beside the AI's original:
// which approve it belongs to, and so what a row's fix is.

// History actions that end an approve's lease without taking its edit off the row
// (KeepsEdit).
const (
	// ActionApplyHeld ends a write held for an ownership approval (CodeApprovalRequired).
	ActionApplyHeld = "apply_held"
	// ActionLeaseUnverified ends a lease whose write's outcome could not be read for
	// UnverifiedAfter (LeaseSettler).
	ActionLeaseUnverified = "lease_unverified"
)

// CodeApprovalRequired is the RefusedError code of a write-back held for an ownership
// approval. The hold is released by retry: the next approve that sends the same fix, under
// the same key (FixKey), is written.
const CodeApprovalRequired = "ownership_approval_required"

// KeepsEdit reports whether a lease ended with a history entry of action leaves the edit
// its write carried on the row (DecisionStore.FinishApply): the write was held for an
// ownership approval, which writes it once released, or it may have landed. Any other
// ending back to a decision means the write did not happen and takes the edit with it.
func KeepsEdit(action string) bool {
	return action == ActionApplyHeld || action == ActionLeaseUnverified
}

// EditKept is why a row awaiting a decision (pending, escalated) holds the edit its last
// write carried: the action that ended that write's lease (ActionApplyHeld,
// ActionLeaseUnverified), read from the row's history; "" when the row holds no edit for
// its next approve. It is read from the history, which the listing's index projects beside
// edited_fix, so a listed row and a row read whole say the same.
func EditKept(c Claim) string {
	if len(c.EditedFix) == 0 || !Decidable(c.Status) {
		return ""
	}
	for i := len(c.History) - 1; i >= 0; i-- {
		switch a := c.History[i].Action; {
		case KeepsEdit(a):
			return a
		case a == "approve" || a == "approved" || a == "apply_failed" || a == "apply_refused" || a == "lease_expired":
			// The write that carried the edit began or ended otherwise: an edit left on
			// the row by a store that did not yet take it off is not the row's.
			return ""
		}
	}
	return ""
}

// FixOf is the row's fix: the operator's edit (EditOf), else the AI's. It is what the bulk
// preview shows, the approval policy judges, the detail unmasks and an approve without an
// edit writes, so all of them agree on the fix that will be written: on a row awaiting a
// decision the AI's, or the edit of a write held for an ownership approval or that may
// have landed (EditKept), which that approve writes again under the same key.
func FixOf(c Claim) []FieldChange {
	if e := EditOf(c); len(e) > 0 {
		return e
	}
	if c.Proposal != nil {
		return c.Proposal.Fix
	}
	return nil
}

// EditOf is the operator's edit that the row's write carries (applying) or carried (a
// write marked applied, or approved), or that a row awaiting a decision keeps for its next
// approve (EditKept); nil on any other row. An edit is the approver's for the write that
// sent it: one that did not happen takes it off the row (DecisionStore.FinishApply) and no
// later approve writes it. Rows returned to pending before the stores did so still hold
// theirs (edited_fix), and this leaves it out: the next approve without an edit writes the
// AI's fix, so nothing may show or judge that edit as the row's fix. (The approve's
// history entry names it, as an attempt.)
func EditOf(c Claim) []FieldChange {
	if c.Applied != nil || c.Status == StatusApplying || c.Status == StatusApproved || EditKept(c) != "" {
		return c.EditedFix
	}
	return nil
}
