package policy

import (
	"context"
	"errors"
	"slices"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/jsonvalue"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// What a second approval writes, and what every reader shows it writes.
//
// The rule: while a two-approver edit waits for its second approval (its co-approval
// document holds it), that edit is the row's fix for the approve. The detail shows it
// (queue.Detail.CoApproval) as what Approve writes; an approve without a fix is an
// approval of it, decided by the policy on it, and its second approval writes it. It
// supersedes an edit the row keeps (syncerror.EditKept: a write held for an ownership
// approval, or one that may have landed): an edit sent with an approve is always what the
// approver means to write, so a new edit starts a round of its own, and from then on no
// approve writes the kept edit (the detail leaves editedFix and editKept out and says
// coApproval.supersedes instead). The kept edit is written again only if someone enters
// it again. An approve may name the edit it was shown (coApproval: its Key); when
// another edit waits by then, or none, it is refused (ErrCoApprovalChanged) and nothing
// is recorded or written: an approver is never counted for, nor writes, a fix they were
// not shown. The console always names it.

// ErrCoApprovalChanged is an approve that names a waiting edit (by its key) which is no
// longer the one waiting: another edit started a round since, or it was written.
var ErrCoApprovalChanged = errors.New("the edit waiting for its second approval changed")

// HasTwoApprovers reports whether any rule of p gives fixes to two approvers: only then can
// a row have an edit waiting for its second approval (the detail reads no document else).
func (p *Policy) HasTwoApprovers() bool {
	return p != nil && slices.ContainsFunc(p.Rules, func(r PolicyRule) bool { return r.Apply == ApplyTwoApprovers })
}

// CoApprovalKey names the edit a co-approval document holds, as an approve names what it
// was shown: the fix's idempotency key.
func CoApprovalKey(c syncerror.Claim, ca CoApproval) string {
	if ca.Fix == nil {
		return ""
	}
	return syncerror.FixKey(c.ID, ca.Fix)
}

// CoApprovalOf is the two-approver round of c when one is under way on a row awaiting a
// decision: an edit waiting for its second approval, or approvals of the row's fix; nil
// when none is, or when pol has no two_approvers rule (then nothing is read: one GetItem
// at most, and only for tenants with such a rule).
func (o *Service) CoApprovalOf(ctx context.Context, pol *Policy, c syncerror.Claim) (*CoApproval, error) {
	if o.Assist == nil || !pol.HasTwoApprovers() || !syncerror.Decidable(c.Status) || c.Proposal == nil || c.Applied != nil {
		return nil, nil
	}
	ca, err := o.readCoApproval(ctx, c)
	if err != nil || ca.Fix == nil && len(ca.Approvers) == 0 {
		return nil, err
	}
	return &ca, nil
}

// readCoApproval reads c's co-approval document (empty when there is none).
func (o *Service) readCoApproval(ctx context.Context, c syncerror.Claim) (CoApproval, error) {
	var ca CoApproval
	d, err := o.Assist.Store.GetDoc(ctx, c.TenantID, syncerror.DocCoApproval+c.ID)
	if errors.Is(err, syncerror.ErrNotFound) {
		return ca, nil
	}
	if err != nil {
		return ca, err
	}
	// Numbers as json.Number, as UpdateDoc reads them: the edit is written with every digit.
	err = jsonvalue.Unmarshal(d.Body, &ca)
	return ca, err
}

// Pending is what an approve is of, before the policy decides it: the tenant's policy,
// read once for the approve, and the two-approver edit an approve without a fix approves.
type Pending struct {
	pol *Policy
	// Edit is the edit waiting for its second approval that this approve (sent without a
	// fix) approves, or nil: then it approves the row's fix (syncerror.FixOf).
	Edit []syncerror.FieldChange
}

// PendingApproval reads what an approve of c is of: the tenant's policy and, for an
// approve without an edit, the edit waiting for its second approval (the document is read
// only when the policy has a two_approvers rule, or the approve names an edit). shown is
// the key of the edit the approver was shown, "" when they were shown none (the row's own
// fix), nil when the approve does not say: another edit waiting, or none where one was
// shown, is ErrCoApprovalChanged. An approver shown no waiting edit is not counted for
// one entered since. An approve with an edit starts a round of its own and names none.
func (o *Service) PendingApproval(ctx context.Context, c syncerror.Claim, edited []syncerror.FieldChange, shown *string) (Pending, error) {
	if o.Assist == nil {
		if shown != nil && *shown != "" && edited == nil {
			return Pending{}, ErrCoApprovalChanged
		}
		return Pending{}, nil
	}
	pol, err := o.Assist.Policies().Get(ctx, c.TenantID)
	if err != nil {
		return Pending{}, err
	}
	p := Pending{pol: &pol}
	if edited != nil {
		return p, nil
	}
	// Without a two_approvers rule no round is shown (CoApprovalOf) nor approved: nothing
	// is read for an approve that names none, or names "none" shown.
	if (shown == nil || *shown == "") && !pol.HasTwoApprovers() {
		return p, nil
	}
	ca, err := o.readCoApproval(ctx, c)
	if err != nil {
		return Pending{}, err
	}
	if shown != nil && CoApprovalKey(c, ca) != *shown {
		return Pending{}, ErrCoApprovalChanged
	}
	p.Edit = ca.Fix
	return p, nil
}

// CodeCoApprovalChanged is the problem code of ErrCoApprovalChanged (409).
const CodeCoApprovalChanged = "co_approval_changed"

// CoApprovalChangedDetail says why an approve of a replaced edit was refused.
const CoApprovalChangedDetail = "The edit waiting for a second approval is not the one you were shown: another edit was entered since, " +
	"or it was written. Nothing was recorded or written; review the sync error as it is now and approve again."

// EditedBy reports whether id edited the waiting fix (and so may not approve it).
func (ca *CoApproval) EditedBy(id identity.Identity) bool {
	return ca.Editor != "" && id.IsOneOf(ca.Editor, ca.EditorKeys)
}

// ApprovedBy reports whether id approved it already, under any of their names.
func (ca *CoApproval) ApprovedBy(id identity.Identity) bool { return ca.approved(id) }
