package finance

import (
	"context"
	"errors"
	"maps"
	"math/big"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/retry"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Cause is why an approve failed after it took the lease: the audit record's "cause".
type Cause string

// Failure causes (SPEC.md Errors 1, plus the guard's and the store's own).
const (
	CauseMissingERPID    Cause = "missing_erp_id"
	CauseNotConfigured   Cause = "connector_not_configured"
	CauseUnavailable     Cause = "connector_unavailable"
	CauseRefused         Cause = "governance_refused"
	CauseConnectorError  Cause = "connector_error"
	CauseReturnedNothing Cause = "connector_returned_nothing"
	// CauseCompletionPending and CauseChangedAfterWrite follow a confirmed ERP update:
	// the approve did happen (the audit says success), only recording it did not.
	CauseCompletionPending Cause = "completion_pending"
	CauseChangedAfterWrite Cause = "changed_after_write"
	// CauseOutcomeUnknown: the ERP update may have landed and the evidence could not
	// settle it; the row stays applying and the lease sweep settles it.
	CauseOutcomeUnknown Cause = "erp_outcome_unknown"
	// CauseEarlierOutcomeUnknown: an earlier approve's lease expired before it finished,
	// its update may have landed, and the evidence could not be read: this approve wrote
	// nothing and the row stays applying for the sweep.
	CauseEarlierOutcomeUnknown Cause = "earlier_outcome_unknown"
)

// lastErrors are what the row's LastError says after each cause: words for the operator,
// never an internal error's text.
var lastErrors = map[Cause]string{
	CauseMissingERPID:    "the approval names no ERP record (erp_id); the host ERP must send one before it can be approved",
	CauseNotConfigured:   "the tenant has no host ERP connector; nothing was written",
	CauseUnavailable:     "a governance check or the host ERP connector was unavailable; nothing was written, retry the approve",
	CauseConnectorError:  "the host ERP did not accept the update; retry the approve",
	CauseReturnedNothing: "the host ERP answered without confirming the record; retry the approve",
}

// ApproveError is an approve that failed after it took the lease. The row was returned to
// pending if Reverted, and the failure was audited. Applied says the ERP update was
// confirmed before the failure: the approval happened and the row only ends accepted.
type ApproveError struct {
	Cause   Cause
	Applied bool
	// Reverted says this approve returned the row to pending. It is false when the lease
	// was no longer its own (lost race) or the revert could not be written (the lease then
	// expires and the sweep returns the row).
	Reverted bool
	// Refusal is set with CauseRefused.
	Refusal *RefusedError
	// Err is the underlying error, for the log only.
	Err error
}

func (e *ApproveError) Error() string {
	if e.Err != nil {
		return "approve failed: " + string(e.Cause) + ": " + e.Err.Error()
	}
	return "approve failed: " + string(e.Cause)
}

func (e *ApproveError) Unwrap() error { return e.Err }

// ErrConfirmationRequired: the approval's amount is above the tenant's confirmation
// threshold and the approver did not confirm it; nothing was changed.
var ErrConfirmationRequired = errors.New("finance: approving this amount must be confirmed")

// Above reports whether the magnitude of amount (a credit counts as much as a debit) is
// greater than limit. An amount that does not parse counts as above: it is confirmed.
func Above(amount string, limit *big.Rat) bool {
	a, ok := tenant.ParseAmount(amount)
	return !ok || new(big.Rat).Abs(a).Cmp(limit) > 0
}

// decided reports whether a row in status st is accepted or rejected: final.
func decided(st Status) bool { return st == StatusAccepted || st == StatusRejected }

// errReturnedNothing stands for a nil error with an unconfirmed result.
var errReturnedNothing = errors.New("the connector returned no confirmation of the record")

// Approve runs the two-stage lease around the ERP update for the tenant's approval id,
// attributed to who. It returns the accepted row; on ErrNotPending or ErrLeaseHeld it
// returns the row as it stands; after the lease was taken every failure is an
// *ApproveError. unconfirmedLimit, when not nil, is the amount the caller has not
// confirmed approving above (the tenant's finance_ops.confirm_above): a row for more
// answers ErrConfirmationRequired before anything changes; nil approves any amount.
func (s *Service) Approve(ctx context.Context, who identity.Identity, id string, unconfirmedLimit *big.Rat) (Approval, error) {
	if !ValidID(id) {
		return Approval{}, ErrInvalidID
	}
	cur, err := s.fourEyes(ctx, who, id)
	if err != nil {
		return cur, err
	}
	// Whatever the row's status as read: pending, or applying under a lease that may expire
	// or be reverted before BeginAccept, it can still become this approve's write. Only a
	// decided row cannot (the answer is not_pending); the amount never changes after create.
	if unconfirmedLimit != nil && !decided(cur.Status) && Above(cur.Amount, unconfirmedLimit) {
		return cur, ErrConfirmationRequired
	}
	now := s.now()
	ttl := s.leaseTTL()
	lease := NewLease(now, ttl)
	lease.Holder = who.Actor
	start := time.Now()
	held, err := s.Store.BeginAccept(ctx, who.TenantID, id, lease, now)
	if errors.Is(err, ErrStateChanged) {
		cur, err := s.whyNotPending(ctx, who.TenantID, id)
		if !errors.Is(err, ErrLeaseHeld) || cur.Lease == nil || !cur.Lease.ExpiresAt.Before(now) {
			return cur, err
		}
		if !cur.AppliedAt.IsZero() {
			// The approve that updated the ERP stopped before completing: complete it.
			return s.completeApplied(ctx, who, cur)
		}
		if held, err = s.takeOver(ctx, who, cur, lease, now); held.Status != StatusApplying || err != nil {
			return held, err
		}
	} else if err != nil {
		return Approval{}, err
	}
	s.observe(StageBegin, start)

	if held.ERPID == "" {
		return s.fail(ctx, who, held, lease, &ApproveError{Cause: CauseMissingERPID})
	}
	erpCtx, cancel := erpContext(ctx, ttl)
	start = time.Now()
	res, err := s.ERP.Update(erpCtx, who, held, IdempotencyKey(held.ID))
	cancel()
	if err == nil && !Confirmed(held, res) {
		err = errReturnedNothing
	}
	if f := (*ApproveError)(nil); err != nil {
		if f = classify(err); f.Cause == CauseOutcomeUnknown {
			return s.settle(ctx, who, held, lease, f)
		}
		return s.fail(ctx, who, held, lease, f)
	}
	s.observe(StageERP, start)
	if s.Hooks.AfterERPUpdate != nil {
		s.Hooks.AfterERPUpdate(ctx, held)
	}

	// The ERP has been updated: recording that must not depend on the caller staying.
	dctx, dcancel := detached(ctx)
	defer dcancel()
	return s.finishApplied(dctx, who, held, lease.Token, res, true)
}

// fourEyes refuses (ErrOwnRequest, audited denied) an approve by the person who requested
// the approval: the requestedBy the host ERP sent is matched against every name of the
// approver (identity.Is). It reads the row first, and fails closed: when the row cannot be
// read nothing is approved. requestedBy never changes after create, so the read cannot
// go stale before the lease is taken.
func (s *Service) fourEyes(ctx context.Context, who identity.Identity, id string) (Approval, error) {
	cur, err := s.Store.Get(ctx, who.TenantID, id)
	if err != nil {
		return Approval{}, err
	}
	if who.Is(cur.RequestedBy) {
		s.audit(ctx, who, ActionApprove, audit.ResultDenied, cur, map[string]any{
			"problem": CodeOwnRequest, "erpId": cur.ERPID, "entity": cur.Entity, "amount": cur.Amount, "currency": cur.Currency})
		return cur, ErrOwnRequest
	}
	return cur, nil
}

// completeApplied completes a row whose ERP update was confirmed by an approve that then
// stopped (its lease expired): accepted as decided by that approve's approver, audited
// as finance.approve_completed by who. The ERP is not called again. A row the sweep found
// in the write ledger but not marked does not name its approver: who decides it.
func (s *Service) completeApplied(ctx context.Context, who identity.Identity, a Approval) (Approval, error) {
	by := a.AppliedBy
	if by == "" && a.Lease != nil {
		by = a.Lease.Holder
	}
	if by == "" {
		by = who.Actor
	}
	done, err := s.Store.CompleteAccept(ctx, a.TenantID, a.ID, a.Lease.Token, by, s.now())
	if errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) {
		return s.whyNotPending(ctx, a.TenantID, a.ID)
	}
	if err != nil {
		return a, err
	}
	details := map[string]any{"erpId": done.ERPID, "entity": done.Entity, "appliedBy": a.AppliedBy, "appliedAt": a.AppliedAt}
	if a.AppliedAt.IsZero() {
		details = map[string]any{"erpId": done.ERPID, "entity": done.Entity, "evidence": "write_ledger"}
	}
	s.audit(ctx, who, ActionApproveCompleted, audit.ResultSuccess, done, details)
	return done, nil
}

// ERPReserve is the time an approve keeps, of the request's deadline (the Lambda's), for
// what follows the ERP update: marking, completing or reverting the row and the audit.
const ERPReserve = 5 * time.Second

// erpContext bounds the ERP update by half the lease (the holder gives up, and reverts,
// well before anyone may take over) and by the request's deadline less ERPReserve.
func erpContext(ctx context.Context, ttl time.Duration) (context.Context, context.CancelFunc) {
	limit := time.Now().Add(ttl / 2)
	if d, ok := ctx.Deadline(); ok && d.Add(-ERPReserve).Before(limit) {
		limit = d.Add(-ERPReserve)
	}
	return context.WithDeadline(ctx, limit)
}

// finishApplied follows a confirmed ERP update: mark the row applied, complete it, audit
// the approve as the success it is. It never reverts: when completing fails the row stays
// applying and marked, and the next approve or the sweep completes it.
//
// If the row went back to pending meanwhile (the sweep took a lease that outlived a
// paused process), the ERP update still happened: the approve takes the row again, once,
// and records it.
func (s *Service) finishApplied(ctx context.Context, who identity.Identity, held Approval, token string, res connector.WriteResult, retake bool) (Approval, error) {
	final := func(err error) bool { return errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) }
	if err := retry.Store(ctx, func() error {
		return s.Store.MarkApplied(ctx, held.TenantID, held.ID, token, who.Actor, s.now())
	}, final); err != nil {
		httpapi.Logger(ctx).Error("finance approve: applied marker not stored", "id", held.ID, "error", err)
	}
	start := time.Now()
	var done Approval
	err := retry.Store(ctx, func() (err error) {
		done, err = s.Store.CompleteAccept(ctx, held.TenantID, held.ID, token, who.Actor, s.now())
		return err
	}, final)
	details := map[string]any{"erpId": held.ERPID, "entity": held.Entity, "amount": held.Amount, "currency": held.Currency,
		"erpVersion": res.Record.Version, "replayed": res.Replayed}
	switch {
	case err == nil:
		s.observe(StageComplete, start)
		start = time.Now()
		s.audit(ctx, who, ActionApprove, audit.ResultSuccess, done, details)
		s.observe(StageAudit, start)
		return done, nil
	case final(err):
		cur, gerr := s.Store.Get(ctx, held.TenantID, held.ID)
		if gerr == nil && cur.Status == StatusPending && retake {
			lease := NewLease(s.now(), s.leaseTTL())
			lease.Holder = who.Actor
			if again, err := s.Store.BeginAccept(ctx, held.TenantID, held.ID, lease, s.now()); err == nil {
				return s.finishApplied(ctx, who, again, lease.Token, res, false)
			}
		}
		if gerr == nil && cur.Status == StatusAccepted {
			details["completedBy"] = cur.DecidedBy
			s.audit(ctx, who, ActionApprove, audit.ResultSuccess, cur, details)
			return cur, nil
		}
		details["completion"] = "state_changed"
		s.audit(ctx, who, ActionApprove, audit.ResultSuccess, held, details)
		httpapi.Logger(ctx).Error("finance approve: the row changed after the ERP update", "id", held.ID, "status", cur.Status)
		return cur, &ApproveError{Cause: CauseChangedAfterWrite, Applied: true, Err: err}
	}
	details["completion"] = "pending"
	s.audit(ctx, who, ActionApprove, audit.ResultSuccess, held, details)
	httpapi.Logger(ctx).Error("finance approve: ERP updated, approval not completed", "id", held.ID, "error", err)
	held.AppliedBy, held.AppliedAt = who.Actor, s.now()
	return held, &ApproveError{Cause: CauseCompletionPending, Applied: true, Err: err}
}

// classify turns an ERPUpdater error into the approve's failure.
func classify(err error) *ApproveError {
	var refused *RefusedError
	switch {
	case errors.Is(err, errReturnedNothing):
		return &ApproveError{Cause: CauseReturnedNothing, Err: err}
	case errors.As(err, &refused):
		return &ApproveError{Cause: CauseRefused, Refusal: refused, Err: err}
	case errors.Is(err, ErrERPNotConfigured):
		return &ApproveError{Cause: CauseNotConfigured, Err: err}
	case errors.Is(err, ErrERPUnavailable):
		return &ApproveError{Cause: CauseUnavailable, Err: err}
	case connector.MayHaveApplied(err), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// The update may have landed: its answer was lost, or the ERP failed midway.
		return &ApproveError{Cause: CauseOutcomeUnknown, Err: err}
	}
	return &ApproveError{Cause: CauseConnectorError, Err: err}
}

// settle decides an update whose outcome was lost (f, CauseOutcomeUnknown) by reading the
// ERP record back: holding the approval's fields, the update landed and the approve
// completes as the success it is. Not holding them, it did not land only if the ERP's
// answer was final (connector.Answered): then the row reverts as for any connector error.
// Otherwise (no answer, a gateway's 502 or 504: the request may still be on its way, or
// the read failed) the row stays applying and the lease sweep, which reads the record
// again once the lease has expired, settles it. Never pending on a guess: that would let a written approval be
// rejected or written again.
func (s *Service) settle(ctx context.Context, who identity.Identity, held Approval, lease Lease, f *ApproveError) (Approval, error) {
	dctx, cancel := detached(ctx)
	defer cancel()
	rctx, rcancel := context.WithTimeout(dctx, ERPReserve/2)
	landed, err := s.ERP.Applied(rctx, who, held)
	rcancel()
	switch {
	case err == nil && landed:
		return s.finishApplied(dctx, who, held, lease.Token, connector.WriteResult{}, true)
	case err == nil && connector.Answered(f.Err):
		f.Cause = CauseConnectorError
		return s.fail(ctx, who, held, lease, f)
	}
	return s.leaveApplying(ctx, who, held, CauseOutcomeUnknown, errors.Join(f.Err, err), nil)
}

// takeOver takes the expired lease of prev, an approve that stopped before marking the
// row applied. That approve may have updated the ERP first (it died between the update and
// the marker), and a second update is not harmless: the record may have moved on since
// (an ERP workflow paid the bill), and writing the approval's values again would undo
// that. So the write evidence decides before anything changes: written, prev's lease is
// completed as the sweep would, decided by the approver whose update it was; unknown (the
// evidence cannot be read), the row is left exactly as it is, for the sweep or a later
// approve to read again; not written, this approve takes the lease and may write.
//
// The evidence is read before the takeover, not under the new lease: a takeover that could
// not read it would otherwise hold the row under an approver who wrote nothing (the
// decider if the sweep later found the first holder's update) and move the row's
// UpdatedAt past that update. TakeOver stays conditional on prev's token, so a sweep or
// another approve that settled the row meanwhile wins, and this one writes nothing.
func (s *Service) takeOver(ctx context.Context, who identity.Identity, prev Approval, lease Lease, now time.Time) (held Approval, err error) {
	written, err := s.wrote(ctx, who, prev)
	switch {
	case err != nil:
		return s.leaveApplying(ctx, who, prev, CauseEarlierOutcomeUnknown, err,
			map[string]any{"leaseHolder": prev.Lease.Holder, "leaseExpiredAt": prev.Lease.ExpiresAt})
	case written:
		return s.completeApplied(ctx, who, prev)
	}
	// The spell goes on: a later sweep still looks for prev's update, and its holders'.
	lease.Since = writesSince(prev)
	held, err = s.Store.TakeOver(ctx, who.TenantID, prev.ID, prev.Lease.Token, lease, now)
	if errors.Is(err, ErrStateChanged) {
		// Another approve or the sweep had it first.
		return s.whyNotPending(ctx, who.TenantID, prev.ID)
	}
	if err != nil {
		return Approval{}, err
	}
	return held, nil
}

// leaveApplying answers an approve that cannot tell whether an ERP update landed: its own
// (CauseOutcomeUnknown) or that of an earlier approve whose lease it met expired
// (CauseEarlierOutcomeUnknown). Nothing changes: the row stays applying (never pending:
// that would let it be rejected or written again) under its lease, whose holder stays the
// decider if the update is found, and the sweep settles it once the lease has expired.
// The audit is written on a context of its own: the request's deadline is often why the
// evidence could not be read.
func (s *Service) leaveApplying(ctx context.Context, who identity.Identity, a Approval, cause Cause, err error, extra map[string]any) (Approval, error) {
	dctx, cancel := detached(ctx)
	defer cancel()
	httpapi.Logger(ctx).Warn("finance approve: whether the ERP update landed cannot be read; nothing written, the sweep settles it",
		"id", a.ID, "cause", string(cause), "error", err)
	details := map[string]any{"cause": string(cause), "erpId": a.ERPID, "entity": a.Entity, "reverted": false}
	maps.Copy(details, extra)
	s.audit(dctx, who, ActionApprove, audit.ResultFailure, a, details)
	return a, &ApproveError{Cause: cause, Err: err}
}

// fail reverts the row held under lease to pending (conditionally on the token) and
// audits the failure. It returns the row and f for the caller to answer with.
func (s *Service) fail(ctx context.Context, who identity.Identity, a Approval, lease Lease, f *ApproveError) (Approval, error) {
	dctx, cancel := detached(ctx)
	defer cancel()
	msg := lastErrors[f.Cause]
	if f.Refusal != nil {
		msg = "governance refused the ERP update: " + f.Refusal.Reason
	}
	err := s.Store.Revert(dctx, a.TenantID, a.ID, lease.Token, msg, s.now())
	switch {
	case err == nil:
		f.Reverted = true
	case errors.Is(err, ErrStateChanged), errors.Is(err, ErrNotFound):
		// The lease is no longer ours: whoever holds the row now decides it.
	default:
		httpapi.Logger(ctx).Error("finance approve: revert failed; the lease will expire and the sweep returns the row",
			"id", a.ID, "error", err)
	}
	if f.Err != nil {
		httpapi.Logger(ctx).Warn("finance approve failed", "id", a.ID, "cause", string(f.Cause), "reverted", f.Reverted, "error", f.Err)
	}
	details := map[string]any{"cause": string(f.Cause), "erpId": a.ERPID, "entity": a.Entity, "reverted": f.Reverted}
	if f.Refusal != nil {
		details["refusal"] = f.Refusal.Code
	}
	if kind := connector.ErrorKind(f.Err); kind != "" {
		details["connectorError"] = kind
	}
	s.audit(dctx, who, ActionApprove, audit.ResultFailure, a, details)
	return a, f
}
