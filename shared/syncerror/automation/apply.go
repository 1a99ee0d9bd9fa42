package automation

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/tenant"
)

// AutoApply is what the diagnosis worker asks of the tenant's knowledge and approval
// policy around a diagnosis: a learned fix before the AI is asked, and the auto rule applied
// to the proposal once the diagnosis is stored.
type AutoApply struct {
	Assist *policy.Assist
	// Policies reads the tenant's approval policy for the auto rules (nil: Assist's, read
	// each time).
	Policies  *policy.CachedPolicies
	Apply     *decisions.Service // the approve path an enforced rule applies through
	Tenants   tenant.Reader
	Diagnoser syncerror.Diagnoser
	Now       func() time.Time
}

func (ap *AutoApply) policy(ctx context.Context, tenantID string) (policy.Policy, error) {
	if ap.Policies != nil {
		return ap.Policies.Get(ctx, tenantID)
	}
	return ap.Assist.Policies().Get(ctx, tenantID)
}

func (ap *AutoApply) now() time.Time {
	if ap.Now != nil {
		return ap.Now().UTC()
	}
	return time.Now().UTC()
}

// Propose is the worker's diagnosis with the tenant's knowledge first: a learned fix needs
// no AI call; otherwise the diagnoser's proposal, less any fix people rejected.
func (ap *AutoApply) Propose(ctx context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	if ap.Assist == nil {
		return ap.Diagnoser.Diagnose(ctx, c, inferenceID)
	}
	l := ap.Assist.Learning()
	p, ok, err := l.Propose(ctx, c, inferenceID, ap.now())
	if err != nil {
		return syncerror.Proposal{}, err
	}
	if ok {
		return p, nil
	}
	if p, err = ap.Diagnoser.Diagnose(ctx, c, inferenceID); err != nil {
		return p, err
	}
	return l.WithoutRejected(ctx, c, p)
}

// Decide is the tenant's auto rule for a row's new proposal, read before the proposal is
// stored, so the stored proposal says whether the row has an automation record
// (Proposal.Automation). ok is false when the policy could not be read: then no rule
// applies, and the proposal says nothing.
func (ap *AutoApply) Decide(ctx context.Context, c syncerror.Claim, p syncerror.Proposal) (d policy.Decision, ok bool) {
	if ap.Assist == nil || len(p.Fix) == 0 {
		return policy.Decision{}, true
	}
	c.Proposal, c.Status, c.Diagnosis = &p, syncerror.StatusPending, syncerror.DiagnosisReady
	pol, err := ap.policy(ctx, c.TenantID)
	if err != nil {
		httpapi.Logger(ctx).Error("approval policy unreadable; no automation", "id", c.ID, "error", err)
		return policy.Decision{}, false
	}
	return pol.Decide(policy.FactsOf(c, p.Fix)), true
}

// Automation is what Decide's answer makes the proposal say (Proposal.Automation).
func Automation(d policy.Decision, ok bool) string {
	switch {
	case !ok:
		return ""
	case d.Apply != policy.ApplyAuto:
		return syncerror.NoAutomation
	}
	return d.Mode
}

// Automate applies d, the tenant's auto rule for a row whose diagnosis just completed
// (Decide): shadow records what it would apply; enforce applies it through the approve
// route's own path. Nothing here fails the diagnosis: a row the rule cannot apply waits for
// people.
func (ap *AutoApply) Automate(ctx context.Context, c syncerror.Claim, p syncerror.Proposal, d policy.Decision) {
	if ap.Assist == nil || len(p.Fix) == 0 || d.Apply != policy.ApplyAuto {
		return
	}
	c.Proposal, c.Status, c.Diagnosis = &p, syncerror.StatusPending, syncerror.DiagnosisReady
	rec := syncerror.Automation{ClaimID: c.ID, ErrorID: c.Record.ErrorID, RecordType: c.Record.RecordType, RecordID: c.Record.RecordID,
		RuleID: d.RuleID, Mode: d.Mode, Class: p.Class, Fix: p.Fix, At: ap.now()}
	if d.Mode == policy.ModeEnforce {
		rec.Outcome, rec.Detail = ap.enforce(ctx, c, d)
	}
	if err := ap.Assist.StoreAutomation(ctx, c.TenantID, rec, ap.now()); err != nil {
		httpapi.Logger(ctx).Error("automation record not stored", "id", c.ID, "rule", d.RuleID, "error", err)
	}
	metric := map[string]float64{"AutoShadowed": 1}
	if d.Mode == policy.ModeEnforce {
		metric = map[string]float64{"AutoApplyAttempts": 1}
		if rec.Outcome == syncerror.OutcomeApplied {
			metric["AutoApplied"] = 1
		}
	}
	emf.Emit(emf.Metric{Time: ap.now(), Dimensions: []string{"feature", "class"}, Counts: metric,
		Fields: map[string]any{"feature": "syncerror", "class": p.Class, "rule": d.RuleID, "tenant": c.TenantID, "outcome": rec.Outcome}})
}

// enforce applies the rule's fix unless the tenant's auto_apply flag is off or its cap
// for the minute is spent.
func (ap *AutoApply) enforce(ctx context.Context, c syncerror.Claim, d policy.Decision) (string, string) {
	flags := ap.Assist.Flags
	if flags == nil {
		flags = ap.Tenants
	}
	if flags != nil {
		cfg, err := flags.Get(ctx, c.TenantID)
		if err != nil {
			return syncerror.OutcomeFailed, "tenant settings unreadable"
		}
		if !cfg.Flag(tenant.KeyAutoApply) {
			return syncerror.OutcomeOff, tenant.KeyAutoApply + " is not 'true'"
		}
	}
	if ap.Apply == nil {
		return syncerror.OutcomeFailed, "no approve path configured"
	}
	if err := ap.Assist.TakeAutoApply(ctx, c.TenantID, ap.now()); err != nil {
		if errors.Is(err, policy.ErrAutoApplyCapped) {
			return syncerror.OutcomeCapped, "the tenant's auto-apply cap for this minute is spent"
		}
		return syncerror.OutcomeFailed, "auto-apply counter unavailable"
	}
	// The rule vouches for the fix it judged, as an approver for the one shown: a row that
	// would write another by now (an edit kept from a held write, a waiting two-approver
	// edit) is refused (fix_changed) and waits for people.
	key, ok := syncerror.ConfirmKey(c.Proposal.Class, c.Proposal.Fix)
	if !ok {
		return syncerror.OutcomeFailed, "the fix could not be keyed"
	}
	actx := identity.WithAuth(syncerror.WithConfirmed(policy.WithAutoRule(ctx, d.RuleID), []string{key}),
		identity.Principal{Subject: "policy:" + d.RuleID, TenantID: c.TenantID, Roles: []string{identity.RoleApprover}})
	req, _ := http.NewRequestWithContext(actx, http.MethodPost, "/api/sync-error-assist/proposals/"+c.ID+"/approve", bytes.NewReader(nil))
	req.SetPathValue("id", c.ID)
	rec := syncerror.NewRecorder()
	ap.Apply.ApproveHandler().ServeHTTP(rec, req)
	if rec.Code == http.StatusOK || rec.Code == http.StatusAccepted {
		return syncerror.OutcomeApplied, ""
	}
	return syncerror.OutcomeFailed, rec.Body.String()
}
