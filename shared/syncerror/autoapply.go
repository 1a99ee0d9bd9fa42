package syncerror

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// DefaultAutoApplyPerMinute caps a tenant's enforced auto-applies.
const DefaultAutoApplyPerMinute = 60

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

// docSort lists automation records by when the rule acted, newest first (docSorter).
func (a Automation) docSort() time.Time { return a.At }

var errSkip = errors.New("skip")

// AutoApply is what the diagnosis worker asks of the tenant's knowledge and approval
// policy around a diagnosis: a learned fix before the AI is asked, and the auto rule applied
// to the proposal once the diagnosis is stored.
type AutoApply struct {
	Assist    *Assist
	Apply     *Operator // the approve path an enforced rule applies through
	Tenants   tenant.Reader
	Diagnoser Diagnoser
	Now       func() time.Time
}

func (ap *AutoApply) now() time.Time {
	if ap.Now != nil {
		return ap.Now().UTC()
	}
	return time.Now().UTC()
}

// Propose is the worker's diagnosis with the tenant's knowledge first: a learned fix needs
// no AI call; otherwise the diagnoser's proposal, less any fix people rejected.
func (ap *AutoApply) Propose(ctx context.Context, c Claim, inferenceID string) (Proposal, error) {
	if ap.Assist == nil {
		return ap.Diagnoser.Diagnose(ctx, c, inferenceID)
	}
	l := ap.Assist.learning()
	p, ok, err := l.Propose(ctx, c, inferenceID, ap.now())
	if err != nil {
		return Proposal{}, err
	}
	if ok {
		return p, nil
	}
	if p, err = ap.Diagnoser.Diagnose(ctx, c, inferenceID); err != nil {
		return p, err
	}
	return l.WithoutRejected(ctx, c, p)
}

// Automate applies the tenant's auto rule to a row whose diagnosis just completed: shadow
// records what it would apply; enforce applies it through the approve route's own path.
// Nothing here fails the diagnosis: a row the rule cannot apply waits for people.
func (ap *AutoApply) Automate(ctx context.Context, c Claim, p Proposal) {
	if ap.Assist == nil || len(p.Fix) == 0 {
		return
	}
	c.Proposal, c.Status, c.Diagnosis = &p, StatusPending, DiagnosisReady
	pol, err := ap.Assist.policies().Get(ctx, c.TenantID)
	if err != nil {
		httpapi.Logger(ctx).Error("approval policy unreadable; no automation", "id", c.ID, "error", err)
		return
	}
	d := pol.Decide(FactsOf(c, p.Fix))
	if d.Apply != ApplyAuto {
		return
	}
	rec := Automation{ClaimID: c.ID, ErrorID: c.Record.ErrorID, RecordType: c.Record.RecordType, RecordID: c.Record.RecordID,
		RuleID: d.RuleID, Mode: d.Mode, Class: p.Class, Fix: p.Fix, At: ap.now()}
	if d.Mode == ModeEnforce {
		rec.Outcome, rec.Detail = ap.enforce(ctx, c, d)
	}
	if _, err := updateDoc(ctx, ap.Assist.Store, c.TenantID, docAutomation+c.ID, ap.now(), func(a *Automation, exists bool) error {
		if exists {
			return errSkip // a redelivery: the first record stands
		}
		*a = rec
		return nil
	}); err != nil && !errors.Is(err, errSkip) {
		httpapi.Logger(ctx).Error("automation record not stored", "id", c.ID, "rule", d.RuleID, "error", err)
	}
	metric := map[string]float64{"AutoShadowed": 1}
	if d.Mode == ModeEnforce {
		metric = map[string]float64{"AutoApplyAttempts": 1}
		if rec.Outcome == OutcomeApplied {
			metric["AutoApplied"] = 1
		}
	}
	emf.Emit(emf.Metric{Time: ap.now(), Dimensions: []string{"feature", "class"}, Counts: metric,
		Fields: map[string]any{"feature": "syncerror", "class": p.Class, "rule": d.RuleID, "tenant": c.TenantID, "outcome": rec.Outcome}})
}

// enforce applies the rule's fix unless the tenant's auto_apply flag is off or its cap
// for the minute is spent.
func (ap *AutoApply) enforce(ctx context.Context, c Claim, d Decision) (string, string) {
	flags := ap.Assist.Flags
	if flags == nil {
		flags = ap.Tenants
	}
	if flags != nil {
		cfg, err := flags.Get(ctx, c.TenantID)
		if err != nil {
			return OutcomeFailed, "tenant settings unreadable"
		}
		if !cfg.Flag(tenant.KeyAutoApply) {
			return OutcomeOff, tenant.KeyAutoApply + " is not 'true'"
		}
	}
	if ap.Apply == nil {
		return OutcomeFailed, "no approve path configured"
	}
	if err := ap.Assist.TakeAutoApply(ctx, c.TenantID, ap.now()); err != nil {
		if errors.Is(err, ErrAutoApplyCapped) {
			return OutcomeCapped, "the tenant's auto-apply cap for this minute is spent"
		}
		return OutcomeFailed, "auto-apply counter unavailable"
	}
	actx := identity.WithAuth(context.WithValue(ctx, autoRuleKey{}, d.RuleID),
		identity.Principal{Subject: "policy:" + d.RuleID, TenantID: c.TenantID, Roles: []string{identity.RoleApprover}})
	req, _ := http.NewRequestWithContext(actx, http.MethodPost, "/api/sync-error-assist/proposals/"+c.ID+"/approve", bytes.NewReader(nil))
	req.SetPathValue("id", c.ID)
	rec := &recorder{header: http.Header{}, Code: http.StatusOK}
	ap.Apply.ApproveHandler().ServeHTTP(rec, req)
	if rec.Code == http.StatusOK || rec.Code == http.StatusAccepted {
		return OutcomeApplied, ""
	}
	return OutcomeFailed, rec.Body.String()
}

// ErrAutoApplyCapped means the tenant spent its auto-applies for the minute.
var ErrAutoApplyCapped = errors.New("auto-apply cap reached")

type autoCounter struct {
	Minute string `json:"minute"`
	N      int    `json:"n"`
}

// TakeAutoApply takes one of the tenant's auto-applies for the minute of now.
func (a *Assist) TakeAutoApply(ctx context.Context, tenantID string, now time.Time) error {
	limit := a.AutoApplyPerMinute
	if limit <= 0 {
		limit = DefaultAutoApplyPerMinute
	}
	minute := now.UTC().Truncate(time.Minute).Format(time.RFC3339)
	_, err := updateDoc(ctx, a.Store, tenantID, docAutoCounter, now, func(c *autoCounter, _ bool) error {
		if c.Minute != minute {
			*c = autoCounter{Minute: minute}
		}
		if c.N >= limit {
			return ErrAutoApplyCapped
		}
		c.N++
		return nil
	})
	return err
}

// recordOutcome compares a human decision with the shadow record of the row, if any.
func (a *Assist) recordOutcome(ctx context.Context, c Claim, fix []FieldChange, v Verdict, now time.Time) {
	a.setOutcome(ctx, c, now, func(rec *Automation) bool {
		if rec.Mode != ModeShadow || rec.Outcome != "" {
			return false
		}
		switch {
		case !v.Approved:
			rec.Outcome = OutcomeRejected
		case canon(fix) == canon(rec.Fix):
			rec.Outcome = OutcomeSame
		default:
			rec.Outcome = OutcomeEdited
		}
		at := v.At.UTC()
		rec.DecidedBy, rec.DecidedAt = v.Actor, &at
		emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature", "outcome"}, Counts: map[string]float64{"ShadowDecided": 1},
			Fields: map[string]any{"feature": "syncerror", "outcome": rec.Outcome, "rule": rec.RuleID, "tenant": c.TenantID}})
		return true
	})
}

// setOutcome changes the row's automation record, when it has one and change says so.
func (a *Assist) setOutcome(ctx context.Context, c Claim, now time.Time, change func(*Automation) bool) {
	_, err := updateDoc(ctx, a.Store, c.TenantID, docAutomation+c.ID, now, func(rec *Automation, exists bool) error {
		if !exists || !change(rec) {
			return errSkip
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSkip) {
		httpapi.Logger(ctx).Error("automation outcome not stored", "id", c.ID, "error", err)
	}
}
