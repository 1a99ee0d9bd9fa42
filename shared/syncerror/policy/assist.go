package policy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Assist is the approval policy, the learning from decisions and the automation, shared by
// the operator's routes and the worker. A Service or Worker without one behaves as
// before the policy existed: approvers approve, nothing is learned or automated.
type Assist struct {
	Store syncerror.AssistStore
	// Reader reads the record a fix was written to (revert checks it still holds the fix).
	Reader RecordReader
	// AutoApplyPerMinute caps a tenant's enforced auto-applies (DefaultAutoApplyPerMinute).
	AutoApplyPerMinute int
	// Flags reads the tenant's auto_apply flag before every enforced apply, uncached so that
	// switching it off stops the next one (nil: the worker's Tenants).
	Flags tenant.Reader
}

// RecordReader reads the current values of the record a row's fix is written to, and its
// version as the system reports it ("" where it reports none), which a write can be pinned
// to (syncerror.FixWriter's ifVersion).
type RecordReader interface {
	ReadFields(ctx context.Context, c syncerror.Claim) (fields map[string]any, version string, err error)
}

// Policies is the tenant's approval policy, as the decisions and the auto rules read it.
func (a *Assist) Policies() Policies { return Policies{Docs: a.Store} }

// Learning is the tenant's knowledge learned from decisions.
func (a *Assist) Learning() Learning { return Learning{Docs: a.Store} }

// autoRuleKey marks a request the policy makes itself (an enforced auto rule applying a
// fix); only code in this process can set it, never a caller.
type autoRuleKey struct{}

// WithAutoRule marks ctx as the enforced auto rule rule applying a fix (the approve path
// lets the rule's own principal approve only what the rule still applies automatically).
func WithAutoRule(ctx context.Context, rule string) context.Context {
	return context.WithValue(ctx, autoRuleKey{}, rule)
}

// problemWithApproval is a problem that names the rule that decided it.
type problemWithApproval struct {
	*httpapi.Problem
	Approval Decision `json:"approval"`
}

func writeApprovalProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string, d Decision) {
	p := httpapi.NewProblem(status, code, detail)
	p.CorrelationID = httpapi.CorrelationID(r.Context())
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problemWithApproval{Problem: p, Approval: d})
}

// Approved is an approve the policy allows: the edit (nil: none) and the fix to write.
type Approved struct {
	Edited, Fix []syncerror.FieldChange
	// coApproved says Edited is the edit a co-approval document holds with its two
	// approvals: it stays there until its write holds the row (Handover).
	coApproved bool
}

// MayApprove authorises an approve of fix on c by the tenant's policy (p: PendingApproval;
// fix is p.Edit when it holds one, the edit waiting for its second approval, which this
// approve then approves: coapproval.go). It returns the fix and edit to write (a
// two-approver approve writes the edit the first approval recorded), or false when it
// answered: 403 with the rule when the caller may not approve, 202 when the approval is
// recorded and waits for a second approver, 409 when the waiting edit changed. Once the
// write holds the row's lease, the caller hands the approval over (Handover).
func (o *Service) MayApprove(w http.ResponseWriter, r *http.Request, actor identity.Identity, c syncerror.Claim, p Pending, edited, fix []syncerror.FieldChange) (Approved, bool) {
	if o.Assist == nil || p.pol == nil {
		if !actor.HasRole(identity.RoleApprover) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusForbidden, "forbidden", "Approvers approve fixes."))
			return Approved{}, false
		}
		return Approved{Edited: edited, Fix: fix}, true
	}
	d := p.pol.Decide(FactsOf(c, fix))
	if rule, _ := r.Context().Value(autoRuleKey{}).(string); rule != "" {
		// A rule applies the AI's fix, never a person's edit waiting for its second approval.
		if d.Apply == ApplyAuto && d.Mode == ModeEnforce && d.RuleID == rule && actor.Actor == "policy:"+rule && p.Edit == nil {
			return Approved{Edited: edited, Fix: fix}, true
		}
		writeApprovalProblem(w, r, http.StatusForbidden, "approval_not_allowed", "The rule no longer applies this fix automatically.", d)
		return Approved{}, false
	}
	role := identity.RoleApprover
	switch d.Apply {
	case ApplyAuto, ApplyOperator:
		role = identity.RoleOperator
	case ApplyTwoApprovers:
		if !actor.HasRole(identity.RoleApprover) {
			break
		}
		return o.coApprove(w, r, actor, c, p, edited, fix, d)
	}
	if !actor.HasRole(role) {
		writeApprovalProblem(w, r, http.StatusForbidden, "approval_not_allowed",
			"The approval policy gives this fix to "+d.Apply+" ("+d.Reason+"); you may not approve it.", d)
		return Approved{}, false
	}
	if p.Edit != nil {
		// The waiting edit, which the policy no longer gives to two approvers: this one
		// approval writes it, and it leaves its document once the write holds the row.
		return Approved{Edited: p.Edit, Fix: p.Edit, coApproved: true}, true
	}
	return Approved{Edited: edited, Fix: fix}, true
}

// CoApproval is the state of a fix that needs two approvers: who edited it (and may not
// approve it) and who approved it so far. The keys are their identity.NameKeys, so one
// person approving from the console and again from the embedded surface is one approver.
type CoApproval struct {
	Editor       string                  `json:"editor,omitempty"`
	EditorKeys   []string                `json:"editorKeys,omitempty"`
	Fix          []syncerror.FieldChange `json:"fix,omitempty"`
	Approvers    []string                `json:"approvers"`
	ApproverKeys []string                `json:"approverKeys,omitempty"`
}

// approved reports whether actor approved already, under any of their names.
func (ca *CoApproval) approved(actor identity.Identity) bool {
	return slices.ContainsFunc(ca.Approvers, actor.Is) || actor.IsOneOf("", ca.ApproverKeys)
}

// coApprove records the caller's approval of a two_approvers fix. An edit makes the
// caller the fix's editor and restarts the approvals; the editor may not approve, nor may
// anyone twice; the second distinct approval proceeds to the write.
//
// An approved edit stays in the document, with its approvals, until its write holds the
// row (Handover): an approve whose lease is not taken (the queue throttled: "nothing was
// written… Retry shortly"; 409) leaves it where it was, and the approver's retry writes it.
// Approvals of the AI's own fix stay after the write too: either approver may retry it.
//
// An approve without an edit approves the edit PendingApproval read (p.Edit), or the row's
// fix when it read none: a document that holds another one by now is refused (409
// co_approval_changed), so no approval counts for, nor writes, what the approver was not
// shown.
func (o *Service) coApprove(w http.ResponseWriter, r *http.Request, actor identity.Identity, c syncerror.Claim, p Pending, edited, fix []syncerror.FieldChange, d Decision) (Approved, bool) {
	var refusal string
	ready := false
	expected := CoApprovalKey(c, CoApproval{Fix: p.Edit})
	st, err := syncerror.UpdateDoc(r.Context(), o.Assist.Store, c.TenantID, syncerror.DocCoApproval+c.ID, o.NowUTC(), func(ca *CoApproval, _ bool) error {
		refusal, ready = "", false
		switch {
		case edited == nil && CoApprovalKey(c, *ca) != expected:
			return ErrCoApprovalChanged
		case edited != nil:
			*ca = CoApproval{Editor: actor.Actor, EditorKeys: actor.NameKeys(), Fix: edited, Approvers: []string{}}
		case ca.Fix != nil && syncerror.Unconfirmed(r.Context(), c.Proposal.Class, ca.Fix):
			// A bulk approve confirmed the row's fix, and this approval would be the
			// document's edit's, written unseen: neither recorded nor written.
			return errChanged
		case actor.IsOneOf(ca.Editor, ca.EditorKeys):
			refusal = "You edited this fix; under rule " + d.RuleID + " two other approvers must approve it."
		case ca.approved(actor) && len(ca.Approvers) >= 2:
			// Both approved and the write did not happen: the row is pending again with
			// the AI's fix, or the approved edit's write did not start. Either may retry.
			ready = true
		case ca.approved(actor):
			refusal = "You approved this fix already; it needs a second, different approver."
		default:
			ca.Approvers = append(ca.Approvers, actor.Actor)
			ca.ApproverKeys = append(ca.ApproverKeys, actor.NameKeys()...)
			ready = len(ca.Approvers) >= 2
		}
		if refusal != "" {
			return errRefused
		}
		return nil
	})
	switch {
	case errors.Is(err, errRefused):
		writeApprovalProblem(w, r, http.StatusForbidden, "approval_not_allowed", refusal, d)
		return Approved{}, false
	case errors.Is(err, ErrCoApprovalChanged):
		writeApprovalProblem(w, r, http.StatusConflict, CodeCoApprovalChanged, CoApprovalChangedDetail, d)
		return Approved{}, false
	case errors.Is(err, errChanged):
		syncerror.WriteFixChanged(w, r)
		return Approved{}, false
	case err != nil:
		httpapi.WriteUnavailable(w, r, err, "The approval could not be recorded; nothing was written. Retry shortly.")
		return Approved{}, false
	case !ready:
		o.WriteAudit(r.Context(), actor, "syncerror.co_approve", audit.ResultSuccess, "syncerror/"+c.ID,
			map[string]any{"rule": d.RuleID, "approvers": st.Approvers, "editor": st.Editor, "edited": edited != nil})
		httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"id": c.ID, "status": syncerror.StatusPending, "approval": d,
			"approvers": st.Approvers, "editor": st.Editor, "needed": 2,
			"message": "Your approval is recorded; the fix is written when a second approver approves it."})
		return Approved{}, false
	}
	if st.Fix != nil {
		return Approved{Edited: st.Fix, Fix: st.Fix, coApproved: true}, true
	}
	return Approved{Fix: fix}, true
}

// Handover takes an approved two-approver edit (a.coApproved) out of its co-approval
// document, with its approvals, once the write that carries it holds the row's lease
// (BeginApply). The row holds the edit from then on (edited_fix; the approve's history
// entry names it), and the row's fate is the edit's: a write held for an ownership
// approval, or one that may have landed, keeps it on the row, one that did not happen
// takes it off (DecisionStore.FinishApply), after which the next approve without an edit
// writes the row's fix, which the detail, the bulk preview and the policy show. Left in
// the document, the edit would be written by that approve instead, unseen.
//
// The document is changed only while it holds this edit: one edited since starts a round
// of its own, which this write does not end.
func (o *Service) Handover(ctx context.Context, c syncerror.Claim, a Approved) error {
	if !a.coApproved || o.Assist == nil {
		return nil
	}
	key := syncerror.FixKey(c.ID, a.Edited)
	_, err := syncerror.UpdateDoc(ctx, o.Assist.Store, c.TenantID, syncerror.DocCoApproval+c.ID, o.NowUTC(), func(ca *CoApproval, _ bool) error {
		if ca.Fix == nil || syncerror.FixKey(c.ID, ca.Fix) != key {
			return errUnchanged
		}
		*ca = CoApproval{Approvers: []string{}}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

var (
	errRefused   = errors.New("refused")
	errUnchanged = errors.New("unchanged")
	errChanged   = errors.New("fix changed")
)

// TenantPolicy is the tenant's approval policy; nil without one (approvers approve).
func (o *Service) TenantPolicy(ctx context.Context, tenantID string) (*Policy, error) {
	if o.Assist == nil {
		return nil, nil
	}
	pol, err := o.Assist.Policies().Get(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return &pol, nil
}

// DecisionOf is who may approve c's fix by pol (approvers without a policy); false for a
// row nobody decides now or with no fix proposed yet.
func DecisionOf(pol *Policy, c syncerror.Claim) (Decision, bool) {
	if !syncerror.Decidable(c.Status) || c.Proposal == nil {
		return Decision{}, false
	}
	if pol == nil {
		return Decision{Apply: ApplyApprover}, true
	}
	return pol.Decide(FactsOf(c, syncerror.FixOf(c))), true
}

// LearnDecision keeps a human decision on c's fix as knowledge, and compares it with what
// an automation rule would have done. Failures are logged: the decision stands.
func (o *Service) LearnDecision(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange, v Verdict) {
	if o.Assist == nil || strings.HasPrefix(v.Actor, "policy:") {
		return
	}
	skipped, err := o.Assist.Learning().Learn(ctx, c, fix, v)
	if err != nil || skipped > 0 {
		httpapi.Logger(ctx).Warn("decision not fully learned", "id", c.ID, "skippedByDLP", skipped, "error", err)
	}
	if learned := len(fix) - skipped; err == nil && learned > 0 {
		verdict := "rejected"
		if v.Approved {
			verdict = "approved"
		}
		emf.Emit(emf.Metric{Time: v.At, Dimensions: []string{"feature", "verdict"}, Counts: map[string]float64{"Learned": float64(learned)},
			Fields: map[string]any{"feature": "syncerror", "verdict": verdict, "tenant": c.TenantID}})
	}
	o.Assist.recordOutcome(ctx, c, fix, v, o.NowUTC())
}

// CountResolved emits, as the insights count it, a row resolved by a fix: by a person or
// by an auto rule, with the time from the claim.
func (o *Service) CountResolved(c syncerror.Claim, actor string) {
	by, class := "person", ""
	if strings.HasPrefix(actor, "policy:") {
		by = "policy"
	}
	if c.Proposal != nil {
		class = c.Proposal.Class
	}
	emf.Emit(emf.Metric{Time: o.NowUTC(), Dimensions: []string{"feature", "class", "by"},
		Counts: map[string]float64{"Resolved": 1, "TimeToResolve": float64(o.NowUTC().Sub(c.ClaimedAt).Milliseconds())},
		Units:  map[string]string{"TimeToResolve": "Milliseconds"},
		Fields: map[string]any{"feature": "syncerror", "class": class, "by": by, "tenant": c.TenantID}})
}
