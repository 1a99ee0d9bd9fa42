// Package delivery is one governed write and how it is judged: the guard's answer turned
// into an outcome (written, refused for good, worth another attempt). The flow executor's
// runs and the sync-error queue's retries are both judged here, so a failure means the
// same whichever of them met it; each keeps its own schedule for what is worth retrying.
package delivery

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// Outcome is how a write ended (the flow run's outcomes; see package flow).
type Outcome string

// Outcomes.
const (
	Written    Outcome = "written"
	Skipped    Outcome = "skipped"
	Rejected   Outcome = "rejected"
	Held       Outcome = "held"
	LoopBroken Outcome = "loop_broken"
	// Failed: the target refused the write for good; sending it again cannot help.
	Failed Outcome = "failed"
	// Retrying: a transient failure; the same write may land later.
	Retrying Outcome = "retrying"
)

// Guard is the guarded write; *governance.Guard implements it.
type Guard interface {
	Write(ctx context.Context, id identity.Identity, req governance.WriteRequest) (governance.Result, error)
}

// Delivery is one write outside a flow run: a sync error's failed delivery sent again.
type Delivery struct {
	TenantID string
	// Actor names who asked, for the guard's audit ("alice", "schedule:retry").
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

// Result is what came of a delivery.
type Result struct {
	Outcome  Outcome
	Decision string
	// Code is the target's error code, when it sent one.
	Code string
	// RetryAfter is what the target asked for with Retry-After, when it did.
	RetryAfter time.Duration
	// Err is the guard's error, for a caller that branches on it (nil when written).
	Err error
}

// Deliver makes d's write through g, once, and judges it.
func Deliver(ctx context.Context, g Guard, d Delivery) Result {
	res, err := g.Write(ctx, identity.ForTenant(d.TenantID, d.Actor), governance.WriteRequest{
		Target: d.Target, Source: d.Source, Entity: d.Entity, RecordID: d.RecordID,
		Fields: d.Fields, IdempotencyKey: d.IdempotencyKey, Reason: d.Reason,
	})
	o, decision := Classify(len(d.Fields), res, err)
	out := Result{Outcome: o, Decision: decision, Err: err}
	var ce *connector.Error
	if errors.As(err, &ce) {
		out.Code, out.RetryAfter = ce.Code, ce.RetryAfter
	}
	return out
}

// Classify turns the guard's answer to a write of n fields into an outcome and its
// decision in words: final ones, Failed when retrying cannot help, Retrying when it may.
func Classify(n int, res governance.Result, err error) (Outcome, string) {
	switch {
	case err == nil && len(res.Dropped) > 0 && len(res.Dropped)+len(res.Superseded) == n:
		return Skipped, "every field is owned by another system (source_wins dropped them)" + supersededNote(res)
	case errors.Is(err, governance.ErrSuperseded):
		// A newer change of the source record has been written to every field: writing
		// this one would put back values the source no longer holds. Nothing failed.
		return Skipped, "superseded by the change of " + res.SupersededBy.UTC().Format(time.RFC3339Nano) +
			": a newer change of the source record has been written to " + strings.Join(res.Superseded, ", ")
	case err == nil, errors.Is(err, governance.ErrNotRecorded):
		return Written, writtenDecision(res, err)
	case errors.Is(err, governance.ErrOwnershipRejected), errors.Is(err, governance.ErrApprovalDenied):
		return Rejected, err.Error()
	case errors.Is(err, governance.ErrPendingApproval):
		return Held, "waiting on an ownership approval"
	case errors.Is(err, governance.ErrLoopDetected):
		return LoopBroken, err.Error()
	case Permanent(err):
		// The guard's and connector's error texts name the resource, status and the
		// target's error code, never values.
		return Failed, "the target refused the write: " + err.Error()
	}
	return Retrying, connector.ErrorKind(err)
}

func writtenDecision(res governance.Result, err error) string {
	switch {
	case err != nil:
		return "written; its ledger or audit record could not be stored"
	case res.Written.Replayed:
		return "the target already held this write (replayed)"
	case len(res.Looped) > 0:
		return "written without fields that would have closed a loop (see looped)" + supersededNote(res)
	case len(res.Dropped) > 0:
		return "written without fields owned by another system (source_wins)" + supersededNote(res)
	case len(res.Superseded) > 0:
		return "written" + supersededNote(res)
	}
	return "written"
}

// supersededNote names the fields the guard took out as older than a change written
// since, for a decision.
func supersededNote(res governance.Result) string {
	if len(res.Superseded) == 0 {
		return ""
	}
	return "; without " + strings.Join(res.Superseded, ", ") + ", superseded by the change of " +
		res.SupersededBy.UTC().Format(time.RFC3339Nano)
}

// Permanent says whether a retry cannot succeed: the target refused the content, the
// record is missing, the guard refused the request or its fields, or no connector exists
// or its configuration cannot be used (a base URL that now leads onto a private network).
func Permanent(err error) bool {
	for _, e := range []error{connector.ErrValidation, connector.ErrNotFound, connector.ErrUnauthorized,
		connector.ErrUnsupported, connector.ErrInvalidConfig, governance.ErrNotConfigured, governance.ErrInvalidRequest,
		governance.ErrDLPBlocked} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
