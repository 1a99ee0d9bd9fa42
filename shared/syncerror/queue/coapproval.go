package queue

import (
	"context"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// CoApprovalView is a row's two-approver round as its detail shows it (policy/coapproval.go
// says what a second approval writes): who edited the fix waiting for its second approval,
// who approved it so far, and that fix, which an approve without a fix approves and, as its
// second approval, writes. People are named as the history names them.
type CoApprovalView struct {
	// Editor is who entered Fix (absent for approvals of the row's own fix); they may not
	// approve it.
	Editor      string `json:"editor,omitempty"`
	EditorIsYou bool   `json:"editorIsYou,omitempty"`
	// Approvers approved it so far; Needed is how many distinct approvers write it.
	Approvers []CoApprover `json:"approvers"`
	Needed    int          `json:"needed"`
	// Fix is the edit waiting, shown as the row's editedFix is (its values as entered, the
	// record's payload unmasked in its fields); absent when the approvals are of the row's
	// fix (proposal.fix, or the kept editedFix).
	Fix []syncerror.FieldChange `json:"fix,omitempty"`
	// Key names Fix for an approve (coApproval): one answered 409 co_approval_changed
	// when another edit waits by then.
	Key string `json:"key,omitempty"`
	// Supersedes is why the row kept an edit that Fix replaces (held, unverified): no
	// approve writes that edit any more.
	Supersedes string `json:"supersedes,omitempty"`
	// You is why the viewer cannot be the next approver: editor (they entered Fix) or
	// approved (they approved it already); absent when they can.
	You string `json:"you,omitempty"`
}

// CoApprover is one approval of a two-approver round.
type CoApprover struct {
	Actor string `json:"actor"`
	You   bool   `json:"you,omitempty"`
}

// coApprovalView shows ca on row c to the viewer of ctx.
func (o *Service) coApprovalView(ctx context.Context, c syncerror.Claim, ca *policy.CoApproval) *CoApprovalView {
	p := o.peopleFor(ctx)
	viewer, _ := identity.FromContext(ctx)
	v := &CoApprovalView{Editor: p.name(ca.Editor), Approvers: []CoApprover{}, Needed: 2, Fix: ca.Fix, Key: policy.CoApprovalKey(c, *ca)}
	if ca.Fix != nil {
		v.Supersedes = editKeptName(c)
	}
	for _, a := range ca.Approvers {
		v.Approvers = append(v.Approvers, CoApprover{Actor: p.name(a), You: p.you(a)})
	}
	switch {
	case ca.EditedBy(viewer):
		v.EditorIsYou, v.You = true, "editor"
	case ca.ApprovedBy(viewer) && len(ca.Approvers) < 2:
		v.You = "approved"
	}
	return v
}

// editKeptName is why c keeps an edit for its next approve, as the detail says it.
func editKeptName(c syncerror.Claim) string {
	switch syncerror.EditKept(c) {
	case syncerror.ActionApplyHeld:
		return "held"
	case syncerror.ActionLeaseUnverified:
		return "unverified"
	}
	return ""
}
