package flow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// Settling a claim marked Creating by an admin's word.
//
// A claim is marked Creating before a run sends a create, and the mark is kept until the
// create is linked (releaseClaim): a create whose answer was lost may have made the
// record. A flow that matches by a key looks for it on its next run; a flow with match
// none has nothing to look for, so every later run of the record fails with a sync error
// asking an admin to check the target. The admin's answer is this settle, on the fix-up
// route (XRefFix.Settle):
//   - created, with the id of the record the admin found: the entry is linked to it (as
//     created, linked by the admin), both directions, as a fix-up links;
//   - not_created: the pending entry is deleted, so the next change of the record claims
//     it afresh and creates the record; refused until the create can no longer land (the
//     vendor's own request timeout after it was sent, connector.LateCommit), as a lookup
//     finding nothing is then (createLanding).
//
// Only a claim marked Creating whose holder run has ended is settled: a run still
// retrying, or watching its held create's approval, decides itself (its next attempt
// links what it made), and an admin's word racing it could create a second record. Every
// change is conditional on the entry as read (SwapXRef), so a run that takes the claim
// over in between makes the settle a 409, never a second record.

// Settle words of a fix-up of a claim marked Creating.
const (
	SettleCreated    = "created"
	SettleNotCreated = "not_created"
)

// ErrNotCreating: a settle of an entry that is not a claim marked Creating whose run ended.
var ErrNotCreating = errors.New("the cross-reference entry is not an unsettled create")

// settleCreating applies a settle (fx.Settle is created or not_created, validated) and
// returns the entry after it (zero after not_created).
func (s *Service) settleCreating(ctx context.Context, tenantID, actor string, fx XRefFix) (XRef, error) {
	st := s.Exec.XRefs
	prev, err := st.XRef(ctx, tenantID, fx.Source, fx.Target.endpoint())
	switch {
	case errors.Is(err, ErrNotFound):
		return XRef{}, fmt.Errorf("%w: there is no pending create of it", ErrNotCreating)
	case err != nil:
		return XRef{}, err
	case prev.State == XRefLinked:
		return XRef{}, fmt.Errorf("%w: it is linked to %s", ErrNotCreating, prev.Target.ID)
	case !prev.Creating:
		return XRef{}, fmt.Errorf("%w: run %s is finding the counterpart and has sent no create", ErrNotCreating, prev.ClaimedBy)
	}
	if err := s.holderEnded(ctx, tenantID, prev.ClaimedBy); err != nil {
		return XRef{}, err
	}
	if fx.Settle == SettleNotCreated {
		if until := prev.createMayLandUntil(fx.Target.System); s.now().Before(until) {
			// Not found now is no proof yet: the vendor may still apply the create, and the
			// next change would then make a second record.
			return XRef{}, fmt.Errorf("%w: the create sent by run %s may still land at %s until %s (its request timeout); look again then",
				ErrNotCreating, prev.ClaimedBy, fx.Target.System, until.UTC().Format(time.RFC3339))
		}
		if err := st.SwapXRef(ctx, tenantID, &prev, nil); err != nil {
			return XRef{}, notCreating(err)
		}
		return XRef{}, nil
	}
	now := s.now()
	next := XRef{Source: fx.Source, Target: fx.Target, State: XRefLinked, Anchor: prev.Anchor, Action: ActionCreated,
		LinkedBy: "admin:" + actor, FlowID: prev.FlowID, CreatedAt: prev.CreatedAt, UpdatedAt: now}
	if err := s.putReverse(ctx, tenantID, next); err != nil {
		return XRef{}, err
	}
	if err := st.SwapXRef(ctx, tenantID, &prev, &next); err != nil {
		s.dropReverse(ctx, tenantID, next)
		return XRef{}, notCreating(err)
	}
	return next, nil
}

// holderEnded refuses a settle while the claim's run may still send or link the create:
// it is retrying (its next attempt looks, or links what it made), or held with its
// approval watched (its attempt after the approval writes and links it). A run no longer
// stored has ended.
func (s *Service) holderEnded(ctx context.Context, tenantID, runID string) error {
	if s.Exec.Store == nil {
		return nil
	}
	r, err := s.Exec.Store.Run(ctx, tenantID, runID)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return err
	case r.Outcome == OutcomeRetrying:
		return fmt.Errorf("%w: run %s is still attempting it; settle it once that run has ended", ErrNotCreating, runID)
	case r.Outcome == OutcomeHeld && r.NextAttemptAt != nil:
		return fmt.Errorf("%w: run %s's create is held for approval %s; approve or deny it under Governance, and the run settles it",
			ErrNotCreating, runID, r.ApprovalID)
	case r.Outcome == OutcomeHeld:
		return s.legacyHoldDecided(ctx, r)
	}
	return nil
}

// legacyHoldDecided refuses a settle of a create held before held runs were watched (its
// run ended held, with no next check): that approval's release, not the run, sends the
// create, so while it is undecided a settle would let a second record be made beside it.
// An approval that cannot be read refuses too.
func (s *Service) legacyHoldDecided(ctx context.Context, r Run) error {
	ap, ok := s.Exec.Guard.(Approvals)
	if !ok {
		return fmt.Errorf("%w: run %s's create is held for approval %s, which cannot be read here", ErrNotCreating, r.ID, r.ApprovalID)
	}
	a, err := ap.HeldApproval(ctx, r.TenantID, r.Target.System, r.ID)
	switch {
	case errors.Is(err, governance.ErrNotFound):
		return nil
	case err != nil:
		return err
	case a.Status == governance.StatusPending || a.Status == governance.StatusReleasing:
		return fmt.Errorf("%w: run %s's create is held for approval %s, whose release sends it; approve or deny it under Governance first",
			ErrNotCreating, r.ID, a.ID)
	}
	return nil
}

func notCreating(err error) error {
	if errors.Is(err, ErrTaken) {
		return fmt.Errorf("%w: a run took the claim over while it was being settled", ErrNotCreating)
	}
	return err
}
