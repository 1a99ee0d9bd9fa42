package flow

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// Delivery is one write made outside a flow run: a sync error's failed delivery sent
// again (the triage queue's retry). It goes through the same guard and is judged by the
// same rules as a run's write; what to do with a transient failure is the caller's, whose
// schedule is its own.
type Delivery struct {
	TenantID string
	// Actor names who asked, for the guard's audit ("user:…", "schedule:retry").
	Actor          string
	Target, Source connector.System
	Entity         string
	RecordID       string
	Fields         map[string]any
	// IdempotencyKey is the same for every attempt of one delivery, so an attempt that
	// wrote and then died is replayed by the target, never applied twice.
	IdempotencyKey string
	Reason         string
}

// DeliveryResult is what came of a delivery: the outcome a run would have had
// (OutcomeFailed for a permanent failure, OutcomeRetrying for a transient one).
type DeliveryResult struct {
	Outcome  Outcome
	Decision string
	// Code is the target's error code, when it sent one.
	Code string
	// RetryAfter is what the target asked for with Retry-After, when it did.
	RetryAfter time.Duration
}

// Deliver makes d's write through the guard, once, and classifies it exactly as a run's
// attempt is classified. A successful write reports the target healthy (Written).
func (x *Executor) Deliver(ctx context.Context, d Delivery) DeliveryResult {
	res, err := x.Guard.Write(ctx, identity.ForTenant(d.TenantID, d.Actor), governance.WriteRequest{
		Target: d.Target, Source: d.Source, Entity: d.Entity, RecordID: d.RecordID,
		Fields: d.Fields, IdempotencyKey: d.IdempotencyKey, Reason: d.Reason,
	})
	o, decision := classify(len(d.Fields), res, err)
	out := DeliveryResult{Outcome: o, Decision: decision}
	var ce *connector.Error
	if errors.As(err, &ce) {
		out.Code, out.RetryAfter = ce.Code, ce.RetryAfter
	}
	if o == OutcomeWritten {
		x.written(ctx, d.TenantID, d.Target)
	}
	return out
}

// classify turns the guard's answer to a write of n fields into an outcome: final ones,
// OutcomeFailed when retrying cannot help, OutcomeRetrying when it may.
func classify(n int, res governance.Result, err error) (Outcome, string) {
	switch {
	case err == nil && len(res.Dropped) > 0 && len(res.Dropped) == n:
		return OutcomeSkipped, "every field is owned by another system (source_wins dropped them)"
	case err == nil, errors.Is(err, governance.ErrNotRecorded):
		return OutcomeWritten, writtenDecision(res, err)
	case errors.Is(err, governance.ErrOwnershipRejected), errors.Is(err, governance.ErrApprovalDenied):
		return OutcomeRejected, err.Error()
	case errors.Is(err, governance.ErrPendingApproval):
		return OutcomeHeld, "waiting on an ownership approval"
	case errors.Is(err, governance.ErrLoopDetected):
		return OutcomeLoopBroken, err.Error()
	case permanent(err):
		// The guard's and connector's error texts name the resource, status and the
		// target's error code, never values.
		return OutcomeFailed, "the target refused the write: " + err.Error()
	}
	return OutcomeRetrying, connector.ErrorKind(err)
}

// written tells whoever listens that a write to system landed: the target is healthy.
func (x *Executor) written(ctx context.Context, tenantID string, system connector.System) {
	if x.Written != nil {
		x.Written(ctx, tenantID, system)
	}
}
