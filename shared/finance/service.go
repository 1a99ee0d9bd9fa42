package finance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Audit action keys of this package (action type audit.TypeFinance).
const (
	ActionApprove      = "finance.approve"
	ActionReject       = "finance.reject"
	ActionCreate       = "finance.create"
	ActionLeaseExpired = "finance.lease_expired"
)

// Auditor writes audit records; *audit.Log implements it.
type Auditor interface {
	Write(ctx context.Context, e audit.Entry) error
}

// Stage names a step of an approve, for Hooks.Stage.
type Stage string

// Approve stages.
const (
	StageBegin    Stage = "begin"    // beginAccept: the conditional lease write
	StageERP      Stage = "erp"      // the governed ERP update
	StageComplete Stage = "complete" // completeAccept
	StageAudit    Stage = "audit"    // the finance.approve success record
)

// Hooks observe an approve. Production leaves them nil; tests use them to stop an approve
// at a precise point and benchmarks to time its stages.
type Hooks struct {
	// Stage is told how long each stage of a successful step took (wall clock).
	Stage func(s Stage, d time.Duration)
	// AfterERPUpdate runs after a confirmed ERP update, before completeAccept: where a
	// crash leaves the ERP updated and the row applying.
	AfterERPUpdate func(ctx context.Context, a Approval)
}

// Service runs finance approvals. Handlers built from it expect authentication in front
// (operator or approver middleware; the create route checks the host's signature itself).
type Service struct {
	Store Store
	ERP   ERPUpdater
	Audit Auditor
	// HostAuth authenticates the host ERP's create requests.
	HostAuth *hostauth.Authenticator[tenant.Config]
	Now      func() time.Time
	// LeaseTTL overrides DefaultLeaseTTL.
	LeaseTTL time.Duration
	Hooks    Hooks
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) leaseTTL() time.Duration {
	if s.LeaseTTL > 0 {
		return s.LeaseTTL
	}
	return DefaultLeaseTTL
}

func (s *Service) observe(st Stage, since time.Time) {
	if s.Hooks.Stage != nil {
		s.Hooks.Stage(st, time.Since(since))
	}
}

// Cause is why an approve failed after it took the lease: the audit record's "cause".
type Cause string

// Failure causes (SPEC.md Errors 1, plus the guard's and the store's own).
const (
	CauseMissingERPID     Cause = "missing_erp_id"
	CauseNotConfigured    Cause = "connector_not_configured"
	CauseUnavailable      Cause = "connector_unavailable"
	CauseRefused          Cause = "governance_refused"
	CauseConnectorError   Cause = "connector_error"
	CauseReturnedNothing  Cause = "connector_returned_nothing"
	CauseLostRace         Cause = "lost_race"
	CauseCompletionFailed Cause = "completion_failed"
)

// lastErrors are what the row's LastError says after each cause: words for the operator,
// never an internal error's text.
var lastErrors = map[Cause]string{
	CauseMissingERPID:     "the approval names no ERP record (erp_id); the host ERP must send one before it can be approved",
	CauseNotConfigured:    "the tenant has no host ERP connector; nothing was written",
	CauseUnavailable:      "a governance check or the host ERP connector was unavailable; nothing was written, retry the approve",
	CauseConnectorError:   "the host ERP did not accept the update; retry the approve",
	CauseReturnedNothing:  "the host ERP answered without confirming the record; retry the approve",
	CauseLostRace:         "another approve took this approval over after the lease expired",
	CauseCompletionFailed: "the ERP was updated but the approval could not be marked accepted; retry the approve (the ERP will not apply it twice)",
}

// ApproveError is an approve that failed after it took the lease. The row was returned to
// pending if Reverted, and the failure was audited.
type ApproveError struct {
	Cause Cause
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

// errReturnedNothing stands for a nil error with an unconfirmed result.
var errReturnedNothing = errors.New("the connector returned no confirmation of the record")

// Approve runs the two-stage lease around the ERP update for the tenant's approval id,
// attributed to who. It returns the accepted row; on ErrNotPending or ErrLeaseHeld it
// returns the row as it stands; after the lease was taken every failure is an
// *ApproveError.
func (s *Service) Approve(ctx context.Context, who identity.Identity, id string) (Approval, error) {
	if !ValidID(id) {
		return Approval{}, ErrInvalidID
	}
	now := s.now()
	ttl := s.leaseTTL()
	lease := NewLease(now, ttl)
	start := time.Now()
	held, err := s.Store.BeginAccept(ctx, who.TenantID, id, lease, now)
	if errors.Is(err, ErrStateChanged) {
		return s.whyNotPending(ctx, who.TenantID, id)
	}
	if err != nil {
		return Approval{}, err
	}
	s.observe(StageBegin, start)

	if held.ERPID == "" {
		return held, s.fail(ctx, who, held, lease, &ApproveError{Cause: CauseMissingERPID})
	}
	// Half the lease: the holder gives up, and reverts, well before anyone may take over.
	erpCtx, cancel := context.WithTimeout(ctx, ttl/2)
	start = time.Now()
	res, err := s.ERP.Update(erpCtx, who, held, IdempotencyKey(held.ID))
	cancel()
	if err == nil && !Confirmed(held, res) {
		err = errReturnedNothing
	}
	if err != nil {
		return held, s.fail(ctx, who, held, lease, classify(err))
	}
	s.observe(StageERP, start)
	if s.Hooks.AfterERPUpdate != nil {
		s.Hooks.AfterERPUpdate(ctx, held)
	}

	// The ERP has been updated: recording that must not depend on the caller staying.
	dctx, dcancel := detached(ctx)
	defer dcancel()
	start = time.Now()
	done, err := s.Store.CompleteAccept(dctx, who.TenantID, id, lease.Token, who.Actor, s.now())
	switch {
	case errors.Is(err, ErrStateChanged), errors.Is(err, ErrNotFound):
		return held, s.fail(ctx, who, held, lease, &ApproveError{Cause: CauseLostRace, Err: err})
	case err != nil:
		return held, s.fail(ctx, who, held, lease, &ApproveError{Cause: CauseCompletionFailed, Err: err})
	}
	s.observe(StageComplete, start)
	start = time.Now()
	s.audit(dctx, who, ActionApprove, audit.ResultSuccess, done, map[string]any{
		"erpId": done.ERPID, "entity": done.Entity, "amount": done.Amount, "currency": done.Currency,
		"erpVersion": res.Record.Version, "replayed": res.Replayed,
	})
	s.observe(StageAudit, start)
	return done, nil
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
	}
	return &ApproveError{Cause: CauseConnectorError, Err: err}
}

// fail reverts the row held under lease to pending (conditionally on the token) and
// audits the failure. It returns f for the caller to answer with.
func (s *Service) fail(ctx context.Context, who identity.Identity, a Approval, lease Lease, f *ApproveError) error {
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
	if kind := connectorErrorKind(f.Err); kind != "" {
		details["connectorError"] = kind
	}
	s.audit(dctx, who, ActionApprove, audit.ResultFailure, a, details)
	return f
}

// whyNotPending explains a refused beginAccept or reject from the row as it stands.
func (s *Service) whyNotPending(ctx context.Context, tenantID, id string) (Approval, error) {
	cur, err := s.Store.Get(ctx, tenantID, id)
	if err != nil {
		return Approval{}, err
	}
	switch cur.Status {
	case StatusAccepted, StatusRejected:
		return cur, ErrNotPending
	}
	// Applying, or pending again because the holder finished between the refused write
	// and this read: either way another approve had the row, and trying again may work.
	return cur, ErrLeaseHeld
}

// Reject moves the tenant's pending approval id to rejected with one conditional write;
// nothing is sent to the ERP. note is the approver's reason (may be empty).
func (s *Service) Reject(ctx context.Context, who identity.Identity, id, note string) (Approval, error) {
	if !ValidID(id) {
		return Approval{}, ErrInvalidID
	}
	done, err := s.Store.Reject(ctx, who.TenantID, id, who.Actor, note, s.now())
	if errors.Is(err, ErrStateChanged) {
		return s.whyNotPending(ctx, who.TenantID, id)
	}
	if err != nil {
		return Approval{}, err
	}
	details := map[string]any{"erpId": done.ERPID, "entity": done.Entity, "amount": done.Amount, "currency": done.Currency}
	if note != "" {
		details["reason"] = note
	}
	s.audit(ctx, who, ActionReject, audit.ResultSuccess, done, details)
	return done, nil
}

// Create stores a new pending approval for its tenant. A redelivery of the same request
// returns the stored row and created=false; a different request under the same id
// returns the stored row and ErrIDReused. who is the host's signed request, for the audit.
func (s *Service) Create(ctx context.Context, who identity.Identity, a Approval) (stored Approval, created bool, err error) {
	created, err = s.Store.Create(ctx, a)
	if err != nil {
		return Approval{}, false, err
	}
	if !created {
		cur, err := s.Store.Get(ctx, a.TenantID, a.ID)
		if err != nil {
			return Approval{}, false, err
		}
		if !sameRequest(cur, a) {
			return cur, false, ErrIDReused
		}
		return cur, false, nil
	}
	s.audit(ctx, who, ActionCreate, audit.ResultSuccess, a, map[string]any{
		"erpId": a.ERPID, "entity": a.Entity, "amount": a.Amount, "currency": a.Currency, "requestedBy": a.RequestedBy,
	})
	return a, true, nil
}

// sweepPage is how many expired leases one query of the sweep reads.
const sweepPage = 100

// SweepExpiredLeases returns the tenant's rows whose lease expired in applying before now
// to pending, each conditionally on the token it saw, and audits each with
// finance.lease_expired. Two overlapping sweeps (or a sweep and an approve taking over)
// revert a row at most once. It returns how many rows this call reverted.
func (s *Service) SweepExpiredLeases(ctx context.Context, tenantID string, now time.Time) (int, error) {
	who := identity.ForTenant(tenantID, "schedule:reconcile")
	n := 0
	for {
		expired, err := s.Store.ExpiredLeases(ctx, tenantID, now, sweepPage)
		if err != nil {
			return n, fmt.Errorf("expired finance leases of %s: %w", tenantID, err)
		}
		progress := 0
		for _, a := range expired {
			if a.Lease == nil {
				continue
			}
			err := s.Store.Revert(ctx, tenantID, a.ID, a.Lease.Token,
				"the approve did not finish before its lease expired; approve again", now)
			if errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return n, fmt.Errorf("revert expired finance lease %s/%s: %w", tenantID, a.ID, err)
			}
			n++
			progress++
			s.audit(ctx, who, ActionLeaseExpired, audit.ResultFailure, a, map[string]any{
				"erpId": a.ERPID, "entity": a.Entity, "leaseExpiredAt": a.Lease.ExpiresAt,
			})
		}
		// A short page was the last; a page of which nothing could be reverted would
		// come back the same (another sweep is working through it).
		if len(expired) < sweepPage || progress == 0 {
			return n, nil
		}
	}
}

func (s *Service) audit(ctx context.Context, who identity.Identity, key, result string, a Approval, details map[string]any) {
	if s.Audit == nil {
		return
	}
	if err := s.Audit.Write(ctx, audit.Entry{Actor: who, ActionType: audit.TypeFinance, ActionKey: key,
		Result: result, Resource: "finance/" + a.ID, Details: details}); err != nil {
		httpapi.Logger(ctx).Error("audit write failed", "actionKey", key, "id", a.ID, "error", err)
	}
}

// detachedTimeout bounds the writes that record an outcome after the caller may be gone.
const detachedTimeout = 10 * time.Second

// detached keeps ctx's values (logger, correlation id) without its cancellation.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), detachedTimeout)
}

// connectorErrorKind names a connector failure for the audit without its text; "" when
// err is not one.
func connectorErrorKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{connector.ErrNotFound, "not_found"}, {connector.ErrConflict, "conflict"},
		{connector.ErrValidation, "validation"}, {connector.ErrUnauthorized, "unauthorized"},
		{connector.ErrRateLimited, "rate_limited"}, {connector.ErrUnavailable, "unavailable"},
		{context.DeadlineExceeded, "timeout"}, {context.Canceled, "canceled"},
	} {
		if err != nil && errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}
