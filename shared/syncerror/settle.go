package syncerror

import (
	"context"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/emf"
)

// Settling an approve that stopped mid-write (its lease expired in applying): the
// reconcile's sweep and an approve, reject or escalate that meets such a row settle it the
// same way, here, below both rooms.

// WriteEvidence tells which of the writes an ended lease may have made reached its target:
// the guard's write ledger by key, else the record read back (a write whose answer was
// lost is in no ledger). The write it returns carries the fix as it was sent. An error
// means neither could tell (the ledger or the record could not be read).
type WriteEvidence interface {
	Landed(ctx context.Context, c Claim, writes []LeaseWrite) (LeaseWrite, bool, error)
}

// UnverifiedAfter is how long after its lease expired a write whose outcome cannot be
// read is settled unverified: the row returns to where it was approved from, saying so,
// rather than wait for evidence that may never come (the connector removed, the record
// forbidden). A day is 48 reconciles: an outage of the system ends well within it.
const UnverifiedAfter = 24 * time.Hour

// Outcome is what became of an ended lease.
type Outcome string

// Outcomes of Settle.
const (
	// SettledWritten: the write reached the target; the row is approved.
	SettledWritten Outcome = "written"
	// SettledNotWritten: nothing landed; the row is back where it was approved from.
	SettledNotWritten Outcome = "not_written"
	// SettledUnverified: the evidence stayed unreadable for UnverifiedAfter; the row is
	// back where it was approved from, its error saying the outcome is not known.
	SettledUnverified Outcome = "unverified"
	// SettleWaiting: the evidence could not be read; the row stays applying.
	SettleWaiting Outcome = "waiting"
)

// Audit is the audit action and result that record a settled lease; ok is false for an
// outcome that settled nothing (SettleWaiting, or none).
func (o Outcome) Audit() (action, result string, ok bool) {
	switch o {
	case SettledWritten:
		return "syncerror.approve_completed", audit.ResultSuccess, true
	case SettledNotWritten:
		return "syncerror.lease_expired", audit.ResultFailure, true
	case SettledUnverified:
		return "syncerror.lease_unverified", audit.ResultFailure, true
	}
	return "", "", false
}

// Settlement is what Settle did: the outcome, the write found (SettledWritten) and, for
// SettleWaiting and SettledUnverified, why the evidence could not tell.
type Settlement struct {
	Outcome Outcome
	Write   LeaseWrite
	Err     error
}

// LeaseSettler settles ended leases: a write that landed is completed approved (marked
// with the fix it sent), one that did not returns the row to its origin, one that cannot
// be told waits, for UnverifiedAfter at most.
type LeaseSettler struct {
	Claims DecisionStore
	// Evidence finds the write (nil: the row's applied marker only; no marker, not written).
	Evidence WriteEvidence
}

// Settle settles c, applying with a lease that expired before now; actor names who
// settles it in the history. ErrStateChanged when the row changed meanwhile (another
// settle, a late completion): nothing was done, and the row says what it is now.
func (s LeaseSettler) Settle(ctx context.Context, c Claim, actor string, now time.Time) (Settlement, error) {
	if c.Status != StatusApplying || c.Lease == nil || !c.Lease.ExpiresAt.Before(now) {
		return Settlement{}, ErrStateChanged
	}
	l := *c.Lease
	entry := func(action, note string) HistoryEntry {
		return HistoryEntry{At: now, Actor: actor, Action: action, Note: note}
	}
	if c.Applied != nil { // marked by the approve that wrote it
		err := s.Claims.FinishApply(ctx, c.TenantID, c.ID, l.Token, StatusApproved, "",
			entry("approved", "completed after the approve that wrote the fix stopped"), now)
		return Settlement{Outcome: SettledWritten, Write: LeaseWrite{Key: c.Applied.Key, Fix: c.Applied.Fix}}, err
	}
	var (
		w     LeaseWrite
		found bool
		err   error
	)
	if s.Evidence != nil {
		w, found, err = s.Evidence.Landed(ctx, c, LeaseWrites(c))
	}
	switch {
	case err != nil && now.Sub(l.ExpiresAt) < UnverifiedAfter:
		return Settlement{Outcome: SettleWaiting, Err: err}, nil
	case err != nil:
		reason := fmt.Sprintf("the approve of %s stopped before it knew whether the fix was written, and its outcome could not be "+
			"verified for %s (the write ledger or the record could not be read); check the record before approving again",
			l.ExpiresAt.Format(time.RFC3339), UnverifiedAfter)
		ferr := s.Claims.FinishApply(ctx, c.TenantID, c.ID, l.Token, l.Origin(), reason, entry(ActionLeaseUnverified, reason), now)
		if ferr == nil {
			emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature"}, Counts: map[string]float64{"OutcomesUnverified": 1},
				Fields: map[string]any{"feature": "syncerror", "tenant": c.TenantID}})
		}
		return Settlement{Outcome: SettledUnverified, Err: err}, ferr
	case found:
		// Marked with the fix the write sent, so the retry and the revert use it, and as
		// of this version, as the approve marks its own: reverts of it mark the row (though
		// none is sent while the values before it are unread: the revert refuses).
		_, cerr := s.Claims.CompleteApply(ctx, c.TenantID, c.ID, l.Token, AppliedWrite{Key: w.Key, At: now, Fix: w.Fix, RevertsMarked: true},
			entry("approved", "completed by "+actor+": the fix had been written to the host ERP"), now)
		return Settlement{Outcome: SettledWritten, Write: w}, cerr
	}
	reason := "the approve did not finish before its lease expired, and the fix is not in the record; approve again"
	ferr := s.Claims.FinishApply(ctx, c.TenantID, c.ID, l.Token, l.Origin(), reason, entry("lease_expired", reason), now)
	return Settlement{Outcome: SettledNotWritten}, ferr
}
