package intake

import (
	"context"
	"errors"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// sweepLeases settles approves that stopped mid-write (their lease expired in applying),
// as an approve that meets such a row does (syncerror.LeaseSettler): a write that reached
// the host ERP (the row's marker, the ledger, or the record read back) is completed
// approved; otherwise the row returns to where it was approved from, and the next approve
// of the same fix carries the same idempotency key, so the ERP replays rather than applies
// it twice. When the evidence cannot be read the row is left for the next run (returning a
// written row to pending is the mistake to avoid), for syncerror.UnverifiedAfter at most:
// then it returns, its error and an audit record saying the outcome was not verified.
func (rc *Reconcile) sweepLeases(ctx context.Context, tenantID string, rep *Report) error {
	now := rc.now()
	expired, err := rc.Claims.ExpiredLeases(ctx, tenantID, now, reconcilePage)
	if err != nil {
		return err
	}
	settler := syncerror.LeaseSettler{Claims: rc.Claims, Evidence: rc.Writes}
	var errs []error
	for _, c := range expired {
		if c.Lease == nil {
			continue
		}
		s, err := settler.Settle(ctx, c, "reconcile", now)
		if errors.Is(err, syncerror.ErrStateChanged) {
			rep.Contended++
			continue
		}
		if err != nil {
			return err
		}
		switch s.Outcome {
		case syncerror.SettleWaiting:
			rep.LeasesWaiting++
			errs = append(errs, s.Err)
			continue
		case syncerror.SettledWritten:
			rep.LeasesCompleted++
		case syncerror.SettledUnverified:
			rep.LeasesUnverified++
		default:
			rep.LeasesExpired++
		}
		rc.auditSweep(ctx, tenantID, c, s)
	}
	return errors.Join(errs...)
}

func (rc *Reconcile) auditSweep(ctx context.Context, tenantID string, c syncerror.Claim, s syncerror.Settlement) {
	key, result, ok := s.Outcome.Audit()
	if rc.Audit == nil || !ok {
		return
	}
	details := map[string]any{"leaseExpiredAt": c.Lease.ExpiresAt}
	if s.Write.Key != "" {
		details["idempotencyKey"] = s.Write.Key
	}
	if s.Err != nil {
		// Why the outcome could not be verified; the connector's error names no values.
		details["evidenceError"] = s.Err.Error()
	}
	if err := rc.Audit.Write(ctx, audit.Entry{Actor: identity.ForTenant(tenantID, "schedule:reconcile"),
		ActionType: audit.TypeSyncError, ActionKey: key, Result: result,
		Resource: "syncerror/" + c.ID, Details: details}); err != nil {
		rc.log().Error("audit write failed", "actionKey", key, "error", err)
	}
}
