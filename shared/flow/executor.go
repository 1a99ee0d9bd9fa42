package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Guard is the guarded write; *governance.Guard implements it.
type Guard interface {
	Write(ctx context.Context, id identity.Identity, req governance.WriteRequest) (governance.Result, error)
}

// SyncErrors turns a run that failed for good into a sync error of the triage queue and
// returns its id. Reporting the same run twice yields the same sync error.
type SyncErrors interface {
	Report(ctx context.Context, r Run, cause string) (string, error)
}

// Defaults of an Executor.
var (
	// DefaultLease is how long a run being attempted is left alone by the redrive.
	DefaultLease = 2 * time.Minute
	// DefaultBackoff are the waits before the 2nd, 3rd, … attempt; after the last one a
	// run that still fails transiently fails for good.
	DefaultBackoff = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}
)

// TrailReuse is how old the trail read at an event may be for the loop check of a run's
// first write to use it rather than read the ledger again (governance.Link.Read): the
// event's writes follow its read within milliseconds, unless an earlier run's write was
// slow.
const TrailReuse = 2 * time.Second

// redrivePage bounds the runs one tenant's redrive takes per call.
const redrivePage = 50

// Executor runs flows for change events and retries what failed transiently.
type Executor struct {
	Store      Store
	Guard      Guard
	SyncErrors SyncErrors
	Now        func() time.Time
	Lease      time.Duration
	Backoff    []time.Duration
	// Trails recovers where the values of an event came from (trace.go); nil treats
	// every value as a change of its source. TrailWindow defaults to DefaultTrailWindow.
	Trails      TrailReader
	TrailWindow time.Duration
	// XRefs and Finder serve flows with a Match (xref_exec.go); flows without one need
	// neither.
	XRefs  XRefStore
	Finder Finder
	// Written, when set, hears of every write that landed: the target system is healthy
	// again, so retries waiting on it may go now.
	Written func(ctx context.Context, tenantID string, system connector.System)
	// Others, when set, are deliveries kept outside the flows table (the sync-error
	// retries) that the redrive runs on the same schedule as the runs.
	Others Redriver
}

// Redriver attempts a tenant's due deliveries and says how many it attempted.
type Redriver interface {
	RunDue(ctx context.Context, tenantID string) (int, error)
}

// Handle starts the runs of every enabled flow whose source is (system, ev.Entity) and
// attempts their writes. A redelivered event (same eventId) answers the runs it started
// and starts nothing, unless its first delivery failed before it stored the event: then
// it stores the runs missing and attempts them all (Store.StartRuns). The run ids are
// returned even when an attempt failed: each run records its own outcome.
func (x *Executor) Handle(ctx context.Context, tenantID string, system connector.System, ev Event) (ids []string, started bool, err error) {
	if strings.HasPrefix(ev.EventID, PollEventPrefix) {
		return nil, false, fmt.Errorf("event id %q: %w", ev.EventID, ErrReservedEventID)
	}
	flows, err := x.Store.Flows(ctx, tenantID)
	if err != nil {
		return nil, false, fmt.Errorf("read flows: %w", err)
	}
	return x.start(ctx, tenantID, system, ev, flows, TriggerEvent)
}

// start is Handle for an event delivered by trigger, with the tenant's flows read.
func (x *Executor) start(ctx context.Context, tenantID string, system connector.System, ev Event, flows []Flow, trigger Trigger) (ids []string, started bool, err error) {
	now := x.now()
	trail, read, err := x.trailFor(ctx, tenantID, system, ev, flows, trigger)
	if err != nil {
		return nil, false, err
	}
	var runs []Run
	for _, f := range flows {
		if r, ok := x.newRun(tenantID, system, f, flows, ev, trail, trigger, now); ok {
			r.trailRead = read
			runs = append(runs, r)
		}
	}
	SoleRun(tenantID, system, ev.EventID, runs)
	st, err := x.Store.StartRuns(ctx, tenantID, system, ev.EventID, runs)
	if err != nil || !st.New {
		return st.IDs, false, err
	}
	for _, r := range runs {
		if slices.Contains(st.OnRecord, r.ID) {
			x.resume(ctx, tenantID, r.ID, now)
			continue
		}
		if r.Outcome == OutcomeRetrying {
			elapsed := x.now().Sub(now)
			if elapsed >= x.lease()/2 {
				// Earlier runs of the event were slow and this run's lease (taken at now) could
				// run out during its attempt, when the redrive takes it: two attempts of one
				// run both find no counterpart and both create one. The redrive has it.
				continue
			}
			if elapsed > TrailReuse {
				r.trailRead = nil // an earlier run's attempt was slow: the guard reads afresh
			}
			x.attempt(ctx, r)
		} else {
			emitDecided(r, now) // skipped at once
		}
	}
	return st.IDs, true, nil
}

// resume attempts a run of this event that another delivery stored (one that failed, or
// that lost the event's key to this one) and so never attempted, rather than leave it to
// wait for its lease: taken as the redrive takes a run, conditional on its first attempt
// still being the stored one, so a redrive that took it first keeps it. A run that cannot
// be read is left to the redrive.
func (x *Executor) resume(ctx context.Context, tenantID, id string, now time.Time) {
	r, err := x.Store.Run(ctx, tenantID, id)
	switch {
	case err != nil:
		httpapi.Logger(ctx).Warn("flow run stored by another delivery not read; the redrive takes it", "tenant", tenantID, "run", id, "error", err)
		return
	case r.Outcome != OutcomeRetrying:
		emitDecided(r, now) // skipped when stored: the delivery that stored it never said so
		return
	case r.Attempts != 1:
		return // the redrive has it
	}
	// Its lease counts from now, not from the event's arrival: an earlier run's slow write
	// may have used it up, and the redrive would take the run again during this attempt.
	if r, err = x.take(ctx, r, x.now()); err == nil {
		x.attempt(ctx, r) // else taken by the redrive in between (ErrTaken), or left to it
	}
}

// take makes r this attempt's: its next attempt, under a new lease, stored on the
// condition that r is still the stored run's attempt. ErrTaken when another took it.
func (x *Executor) take(ctx context.Context, r Run, now time.Time) (Run, error) {
	prev := r.Attempts
	r.Attempts++
	next := now.Add(x.lease())
	r.NextAttemptAt, r.UpdatedAt = &next, now
	return r, x.Store.SaveRun(ctx, r, prev)
}

// newRun is f's run for ev: skipped at once when its filter does not hold or no mapped
// field changed, else retrying with its write pending and its lease ahead.
func (x *Executor) newRun(tenantID string, system connector.System, f Flow, flows []Flow, ev Event, trail map[string]governance.FieldTrail, trigger Trigger, now time.Time) (Run, bool) {
	ok, skip := f.runsFor(system, ev, trigger)
	if !ok {
		return Run{}, false
	}
	r := Run{ID: RunID(tenantID, system, ev.EventID, f.ID), TenantID: tenantID, FlowID: f.ID, EventID: ev.EventID,
		Source: f.Source, Target: f.Target, RecordID: ev.RecordID, System: system, ChangedAt: ev.ChangedAt,
		CreatedAt: now, UpdatedAt: now, Attempts: 1}
	fields, shared := f.mapped(ev)
	r.Fields = slices.Sorted(maps.Keys(fields))
	switch {
	case skip != "":
		r.Outcome, r.Decision = OutcomeSkipped, skip
	case len(fields) == 0:
		r.Outcome, r.Decision = OutcomeSkipped, "no mapped field is in the event"
	default:
		traces := f.traces(ev, trail)
		r.Outcome, r.Pending = OutcomeRetrying, &Pending{Fields: fields, Link: f.withoutEchoes(f.echoable(shared, flows), traces), Traces: traces,
			Match: f.Match, Key: matchKey(f.Match, ev), KeyValue: matchKeyValue(f.Match, ev)}
		next := now.Add(x.lease())
		r.NextAttemptAt = &next
	}
	return r, true
}

// Redrive takes the tenant's due retrying runs, one attempt each. It returns how many it
// attempted; a run another redrive took first is left to it.
func (x *Executor) Redrive(ctx context.Context, tenantID string) (int, error) {
	now := x.now()
	due, err := x.Store.DueRuns(ctx, tenantID, now, redrivePage)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range due {
		if r.Outcome == OutcomeHeld && !x.heldDue(ctx, r, now) {
			continue // held.go: attempted once its approval is approved
		}
		r, err := x.take(ctx, r, now)
		if errors.Is(err, ErrTaken) {
			continue
		}
		if err != nil {
			return n, err
		}
		x.attempt(ctx, r)
		n++
	}
	if x.Others != nil {
		m, err := x.Others.RunDue(ctx, tenantID)
		return n + m, err
	}
	return n, nil
}

// attempt makes the run's write through the guard and stores what it decided. A store
// failure leaves the run retrying under its lease, so the redrive attempts it again and
// the idempotency key (the run id) replays a write that happened.
func (x *Executor) attempt(ctx context.Context, r Run) Run {
	attempts := r.Attempts
	res, err := x.write(ctx, &r)
	r.UpdatedAt = x.now()
	x.settle(ctx, &r, res, err)
	x.releaseClaim(ctx, &r)
	if err := x.Store.SaveRun(ctx, r, attempts); err != nil {
		httpapi.Logger(ctx).Error("flow run outcome not stored; the redrive retries it",
			"tenant", r.TenantID, "run", r.ID, "outcome", r.Outcome, "error", err)
		return r
	}
	emitDecided(r, r.UpdatedAt)
	return r
}

// guarded completes req (the record it addresses, or a create or upsert) from the run
// and writes it through the guard. anchor is the record id the loop link is keyed by: the
// source record's, or for a matched flow the id the cross-reference was first made from,
// which both directions share.
func (x *Executor) guarded(ctx context.Context, r *Run, req governance.WriteRequest, anchor string) (governance.Result, error) {
	return x.Guard.Write(ctx, runIdentity(*r), completeRequest(*r, req, anchor))
}

// completeRequest fills in a write's request from its run: the endpoints, the run's fields
// unless req has its own, the run id as idempotency key and the loop-check link.
func completeRequest(r Run, req governance.WriteRequest, anchor string) governance.WriteRequest {
	req.Target, req.Source, req.Entity = r.Target.System, r.Source.System, r.Target.Entity
	if req.Fields == nil {
		req.Fields = r.Pending.Fields
	}
	req.IdempotencyKey, req.Reason = r.ID, "flow.run"
	// A held write is made by the run once approved, never by the release (held.go).
	req.ReleaseByRetry = true
	req.Link = linkFor(r, anchor)
	return req
}

// runIdentity is who a run's writes are attributed to: background work of its flow.
func runIdentity(r Run) identity.Identity { return identity.ForTenant(r.TenantID, "flow:"+r.FlowID) }

// settle sets the run's outcome from the guard's answer.
func (x *Executor) settle(ctx context.Context, r *Run, res governance.Result, err error) {
	r.Dropped, r.Looped, r.Superseded = res.Dropped, res.Looped, res.Superseded
	if x.settleMatch(ctx, r, err) {
		return
	}
	o, decision := delivery.Classify(len(r.Pending.Fields), res, err)
	switch {
	case o == OutcomeFailed:
		x.fail(ctx, r, decision)
	case o == OutcomeRetrying && delivery.Deferred(err) > 0:
		// The account's rate budget (or the vendor) had no room and said when it will:
		// the run waits exactly that long, however many attempts it made, as nothing was
		// written and only the allowance was short.
		next := x.now().Add(delivery.Deferred(err))
		r.Outcome, r.NextAttemptAt = OutcomeRetrying, &next
		r.Decision = "rate limited, retried at " + next.UTC().Format(time.RFC3339) + ": " + decision
	case o == OutcomeRetrying && r.Attempts > len(x.backoff()):
		x.fail(ctx, r, fmt.Sprintf("still failing after %d attempts: %s", r.Attempts, decision))
	case o == OutcomeRetrying:
		next := x.now().Add(x.backoff()[r.Attempts-1])
		r.Outcome, r.NextAttemptAt = OutcomeRetrying, &next
		r.Decision = "transient failure, retried at " + next.UTC().Format(time.RFC3339) + ": " + decision
	case o == OutcomeHeld:
		x.hold(r, res, decision)
	default:
		if o == OutcomeWritten && x.Written != nil {
			x.Written(ctx, r.TenantID, r.Target.System)
		}
		x.end(r, o, decision)
	}
}

// fail ends the run as failed with its sync error. If the sync error cannot be stored the
// run stays retrying: a failure nobody can see would be a lost one.
func (x *Executor) fail(ctx context.Context, r *Run, cause string) {
	id, err := x.SyncErrors.Report(ctx, *r, cause)
	if err != nil {
		httpapi.Logger(ctx).Error("flow run failed but its sync error could not be stored; retrying",
			"tenant", r.TenantID, "run", r.ID, "error", err)
		next := x.now().Add(x.lease())
		r.Outcome, r.NextAttemptAt, r.Decision = OutcomeRetrying, &next, cause+" (its sync error is not stored yet)"
		return
	}
	r.SyncErrorID = id
	x.end(r, OutcomeFailed, cause)
}

// end makes the run final and forgets the values it was to write.
func (x *Executor) end(r *Run, o Outcome, decision string) {
	r.Outcome, r.Decision, r.NextAttemptAt, r.Pending = o, decision, nil, nil
}

func linkKey(a, b Endpoint, recordID string) string { return pairName(a, b) + "|" + recordID }

func (x *Executor) now() time.Time {
	if x.Now != nil {
		return x.Now().UTC()
	}
	return time.Now().UTC()
}

func (x *Executor) lease() time.Duration {
	if x.Lease > 0 {
		return x.Lease
	}
	return DefaultLease
}

func (x *Executor) backoff() []time.Duration {
	if len(x.Backoff) > 0 {
		return x.Backoff
	}
	return DefaultBackoff
}
