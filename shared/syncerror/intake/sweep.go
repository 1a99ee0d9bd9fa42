package intake

import (
	"context"
	"errors"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// AppliedWrites tells whether one of keys, the idempotency keys a row's write-back would
// carry, reached the host ERP: the guard's write ledger, which the guard stores right
// after the write, before the approve could mark its row.
type AppliedWrites interface {
	Applied(ctx context.Context, c syncerror.Claim, keys []string) (bool, error)
}

// sweepLeases finishes approves that stopped mid-write (their lease expired in applying).
// A write that reached the host ERP (the row's marker, or the ledger) is completed
// approved; otherwise the row returns to pending, and the next approve of the same fix
// carries the same idempotency key, so the ERP replays rather than applies it twice. When
// the ledger cannot be read the row is left for the next run: returning a written row to
// pending would be the one unrecoverable mistake.
func (rc *Reconcile) sweepLeases(ctx context.Context, tenantID string, rep *Report) error {
	now := rc.now()
	expired, err := rc.Claims.ExpiredLeases(ctx, tenantID, now, reconcilePage)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range expired {
		if c.Lease == nil {
			continue
		}
		applied := c.Applied != nil
		if !applied && rc.Writes != nil {
			if applied, err = rc.Writes.Applied(ctx, c, syncerror.FixKeys(c)); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		to, action, note, key, result := c.Lease.Origin(), "lease_expired", "", "syncerror.lease_expired", audit.ResultFailure
		reason := "the approve did not finish before its lease expired; approve again"
		if applied {
			to, action, reason, key, result = syncerror.StatusApproved, "approved", "", "syncerror.approve_completed", audit.ResultSuccess
			note = "completed by the reconcile: the fix had been written to the host ERP"
		}
		entry := syncerror.HistoryEntry{At: now, Actor: "reconcile", Action: action, Note: note}
		var err error
		if applied && c.Applied == nil && c.Lease.Key != "" {
			// Found by its key and not marked: mark it with the fix the lease carried, so
			// the retry and the revert of the row use the fix that was written.
			_, err = rc.Claims.CompleteApply(ctx, tenantID, c.ID, c.Lease.Token,
				syncerror.AppliedWrite{Key: c.Lease.Key, At: now, Fix: c.Lease.Fix}, entry, now)
		} else {
			err = rc.Claims.FinishApply(ctx, tenantID, c.ID, c.Lease.Token, to, reason, entry, now)
		}
		if errors.Is(err, syncerror.ErrStateChanged) {
			rep.Contended++
			continue
		}
		if err != nil {
			return err
		}
		if applied {
			rep.LeasesCompleted++
		} else {
			rep.LeasesExpired++
		}
		rc.auditSweep(ctx, tenantID, c, key, result)
	}
	return errors.Join(errs...)
}

func (rc *Reconcile) auditSweep(ctx context.Context, tenantID string, c syncerror.Claim, key, result string) {
	if rc.Audit == nil {
		return
	}
	details := map[string]any{"leaseExpiredAt": c.Lease.ExpiresAt}
	if c.Applied != nil {
		details["idempotencyKey"] = c.Applied.Key
	}
	if err := rc.Audit.Write(ctx, audit.Entry{Actor: identity.ForTenant(tenantID, "schedule:reconcile"),
		ActionType: audit.TypeSyncError, ActionKey: key, Result: result,
		Resource: "syncerror/" + c.ID, Details: details}); err != nil {
		rc.log().Error("audit write failed", "actionKey", key, "error", err)
	}
}
