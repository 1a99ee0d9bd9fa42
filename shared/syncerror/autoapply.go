package syncerror

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
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

// DocSort lists automation records by when the rule acted, newest first (docSorter; the
// automation room orders records stored before it with it too).
func (a Automation) DocSort() time.Time { return a.At }

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

// StoreAutomation keeps rec as what the auto rule did for its row; a redelivery finds the
// first record there, which stands.
func (a *Assist) StoreAutomation(ctx context.Context, tenantID string, rec Automation, now time.Time) error {
	_, err := updateDoc(ctx, a.Store, tenantID, DocAutomation+rec.ClaimID, now, func(a *Automation, exists bool) error {
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
func (a *Assist) recordOutcome(ctx context.Context, c Claim, fix []FieldChange, v Verdict, now time.Time) {
	a.SetOutcome(ctx, c, now, func(rec *Automation) bool {
		if rec.Mode != ModeShadow || rec.Outcome != "" {
			return false
		}
		switch {
		case !v.Approved:
			rec.Outcome = OutcomeRejected
		case Canon(fix) == Canon(rec.Fix):
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

// SetOutcome changes the row's automation record, when it has one and change says so.
func (a *Assist) SetOutcome(ctx context.Context, c Claim, now time.Time, change func(*Automation) bool) {
	_, err := updateDoc(ctx, a.Store, c.TenantID, DocAutomation+c.ID, now, func(rec *Automation, exists bool) error {
		if !exists || !change(rec) {
			return errSkip
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSkip) {
		httpapi.Logger(ctx).Error("automation outcome not stored", "id", c.ID, "error", err)
	}
}
