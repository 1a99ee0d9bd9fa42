package finance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/governance"
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
	// ActionApproveCompleted records an approval completed after the approve that updated
	// the ERP stopped: by a later approve or the lease sweep.
	ActionApproveCompleted = "finance.approve_completed"
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
	// Tenants holds finance_ops.enabled, which approve and reject check; nil checks none.
	Tenants tenant.Reader
	// Ledger is the guard's write ledger, which the sweep reads before returning a row
	// to pending (nil reads none: tests of the sweep alone).
	Ledger governance.Ledger
	Now    func() time.Time
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

// SweepExpiredLeases finishes the tenant's rows whose lease expired in applying before
// now, each conditionally on the token it saw: a row whose ERP update happened — marked
// applied, or, when the marker was lost too, in the write ledger under the approval's
// idempotency key, or, when the update's answer was lost (no ledger entry), found in the
// ERP record — is completed accepted (finance.approve_completed), any other returns to
// pending (finance.lease_expired). A row whose ledger or record cannot be read is left
// for the next sweep: returning a written row to pending is the one mistake that cannot
// be undone. Until it cannot be read at all or for UnverifiedAfter: then a person must
// decide (returnUnverified).
// Two overlapping sweeps (or a sweep and an approve taking over) finish a row at most
// once. It returns how many rows this call finished.
func (s *Service) SweepExpiredLeases(ctx context.Context, tenantID string, now time.Time) (int, error) {
	who := identity.ForTenant(tenantID, "schedule:reconcile")
	n := 0
	var errs []error
	for {
		expired, err := s.Store.ExpiredLeases(ctx, tenantID, now, sweepPage)
		if err != nil {
			return n, errors.Join(append(errs, fmt.Errorf("expired finance leases of %s: %w", tenantID, err))...)
		}
		progress := 0
		for _, a := range expired {
			if a.Lease == nil {
				continue
			}
			applied, err := s.wrote(ctx, who, a)
			var finished bool
			switch reason := unverifiable(a, err, now); {
			case err != nil && reason == "":
				errs = append(errs, fmt.Errorf("finance approval %s/%s: %w", tenantID, a.ID, err))
				continue
			case err != nil:
				finished, err = s.returnUnverified(ctx, who, a, reason, err, now)
			default:
				finished, err = s.finishExpired(ctx, who, a, applied, now)
			}
			if err != nil {
				return n, errors.Join(append(errs, err)...)
			}
			if finished {
				n++
				progress++
			}
		}
		// A short page was the last; a page of which nothing could be reverted would
		// come back the same (another sweep is working through it).
		if len(expired) < sweepPage || progress == 0 {
			return n, errors.Join(errs...)
		}
	}
}

// finishExpired completes the expired row a when its ERP update happened (applied), and
// returns it to pending otherwise; finished is false when another sweep or approve had
// the row first.
func (s *Service) finishExpired(ctx context.Context, who identity.Identity, a Approval, applied bool, now time.Time) (finished bool, err error) {
	if applied {
		// The ERP was updated: complete, never revert.
		_, err := s.completeApplied(ctx, who, a)
		if errors.Is(err, ErrLeaseHeld) || errors.Is(err, ErrNotPending) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("complete applied finance approval %s/%s: %w", a.TenantID, a.ID, err)
		}
		return true, nil
	}
	err = s.Store.Revert(ctx, a.TenantID, a.ID, a.Lease.Token,
		"the approve did not finish before its lease expired; approve again", now)
	if errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("revert expired finance lease %s/%s: %w", a.TenantID, a.ID, err)
	}
	s.audit(ctx, who, ActionLeaseExpired, audit.ResultFailure, a, map[string]any{
		"erpId": a.ERPID, "entity": a.Entity, "leaseExpiredAt": a.Lease.ExpiresAt,
	})
	return true, nil
}

// wrote reports whether a's ERP update happened: its applied marker, else the guard's
// write ledger, else the ERP record itself (which an update whose answer was lost leaves
// no ledger entry for). a is the row as its last holder left it, applying and not
// marked: only a ledger entry since its applying spell began (writesSince) counts. An
// older entry under the same key is an earlier attempt's, e.g. one the ERP answered 2xx
// without applying (returned nothing, reverted), and is no evidence.
func (s *Service) wrote(ctx context.Context, who identity.Identity, a Approval) (bool, error) {
	if !a.AppliedAt.IsZero() {
		return true, nil
	}
	if a.ERPID == "" {
		return false, nil
	}
	if s.Ledger != nil {
		logged, err := governance.Wrote(ctx, s.Ledger, a.TenantID, a.Entity, a.ERPID, writesSince(a), IdempotencyKey(a.ID))
		if err != nil || logged {
			return logged, err
		}
	}
	return s.ERP.Applied(ctx, who, a)
}

// writesSince is when the applying spell of a began: its lease's Since. A lease taken
// before Since was kept may be a takeover's, whose start (UpdatedAt) is after the update
// of the holder it displaced, so it is looked for from the row's creation: counting an
// earlier, reverted attempt's entry (rare: a 2xx that confirmed nothing) completes a row
// the record may not hold, while missing the displaced holder's entry writes the ERP twice.
func writesSince(a Approval) time.Time {
	if a.Lease != nil && !a.Lease.Since.IsZero() {
		return a.Lease.Since
	}
	return a.CreatedAt
}

func (s *Service) audit(ctx context.Context, who identity.Identity, key, result string, a Approval, details map[string]any) {
	if key == ActionApprove {
		// Approves by outcome, for the dashboard and the approve-failure alarm.
		emf.Emit(emf.Metric{Time: s.now(), Dimensions: []string{"feature", "outcome"}, Counts: map[string]float64{"Approves": 1},
			Fields: map[string]any{"feature": "finance", "outcome": map[string]string{audit.ResultSuccess: "written",
				audit.ResultFailure: "failed", audit.ResultDenied: "denied"}[result], "tenant": a.TenantID}})
	}
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
