package policy

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/jsonvalue"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// DefaultAutoApplyPerMinute caps a tenant's enforced auto-applies.
const DefaultAutoApplyPerMinute = 60

var errSkip = errors.New("skip")

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
	_, err := syncerror.UpdateDoc(ctx, a.Store, tenantID, syncerror.DocAutoCounter, now, func(c *autoCounter, _ bool) error {
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

// StoreAutomation keeps rec as what the auto rule did for its row; a redelivery finds the
// first record there, which stands.
func (a *Assist) StoreAutomation(ctx context.Context, tenantID string, rec syncerror.Automation, now time.Time) error {
	_, err := syncerror.UpdateDoc(ctx, a.Store, tenantID, syncerror.DocAutomation+rec.ClaimID, now, func(a *syncerror.Automation, exists bool) error {
		if exists {
			return errSkip // a redelivery: the first record stands
		}
		*a = rec
		return nil
	})
	if errors.Is(err, errSkip) {
		return nil
	}
	return err
}

// recordOutcome compares a human decision with the shadow record of the row, if any.
func (a *Assist) recordOutcome(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange, v Verdict, now time.Time) {
	a.SetOutcome(ctx, c, now, func(rec *syncerror.Automation) bool {
		if rec.Mode != ModeShadow || rec.Outcome != "" {
			return false
		}
		switch {
		case !v.Approved:
			rec.Outcome = syncerror.OutcomeRejected
		case jsonvalue.Canon(fix) == jsonvalue.Canon(rec.Fix):
			rec.Outcome = syncerror.OutcomeSame
		default:
			rec.Outcome = syncerror.OutcomeEdited
		}
		at := v.At.UTC()
		rec.DecidedBy, rec.DecidedAt = v.Actor, &at
		emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature", "outcome"}, Counts: map[string]float64{"ShadowDecided": 1},
			Fields: map[string]any{"feature": "syncerror", "outcome": rec.Outcome, "rule": rec.RuleID, "tenant": c.TenantID}})
		return true
	})
}

// SetOutcome changes the row's automation record, when it has one and change says so. A
// proposal no auto rule matched has none, so it is not read for.
func (a *Assist) SetOutcome(ctx context.Context, c syncerror.Claim, now time.Time, change func(*syncerror.Automation) bool) {
	if c.Proposal != nil && c.Proposal.Automation == syncerror.NoAutomation {
		return
	}
	_, err := syncerror.UpdateDoc(ctx, a.Store, c.TenantID, syncerror.DocAutomation+c.ID, now, func(rec *syncerror.Automation, exists bool) error {
		if !exists || !change(rec) {
			return errSkip
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSkip) {
		httpapi.Logger(ctx).Error("automation outcome not stored", "id", c.ID, "error", err)
	}
}
