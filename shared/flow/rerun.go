package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
)

// A re-run is how a flow run that failed for good is retried from its sync error: the
// flow runs once more for the source record as its source system holds it now (a fresh
// read through the connector), through the mapping, the match and the guard, as any run
// does. Nothing the failed run meant to write is sent again: its values were the source's
// then, and the sync error keeps them only masked.
//
// A re-run is a run of its own in the flows table, linked to the sync error it retries
// (SyncErrorID). It makes one attempt: however it ends, its outcome is the sync error's
// retry attempt, and a transient failure is retried on the sync error's schedule, not by
// the redrive, so one failure is never reported as a second sync error.

// RerunEventPrefix starts the event id of a re-run. It lies in the poller's id space,
// which pushed events may not use (ParseEvent, Handle), so no source can claim a re-run's
// id first; the poller's own ids are a hash after PollEventPrefix and never start so.
const RerunEventPrefix = PollEventPrefix + "rerun-"

// ErrFlowDisabled means the flow to re-run is switched off: re-running it would write for
// a flow an admin stopped.
var ErrFlowDisabled = errors.New("flow: the flow is disabled")

// ErrSourceRead means the source record could not be read for a re-run; the connector's
// error is wrapped with it.
var ErrSourceRead = errors.New("flow: the source record cannot be read")

// RerunRequest names the run to make again.
type RerunRequest struct {
	FlowID string
	// RecordID is the source record the failed run was for.
	RecordID string
	// Attempt names this attempt: asked again with the same Attempt, a re-run answers the
	// run it started (and its write carries the same idempotency key); another Attempt
	// starts a new run.
	Attempt string
	// SyncErrorID is the sync error the re-run retries.
	SyncErrorID string
	// Fix holds target fields and values a person approved (or a policy rule applied) for
	// this record: written in place of what the mapping reads for them, judged by the
	// guard like every value of the run.
	Fix map[string]any
}

// RerunResult is what one re-run did.
type RerunResult struct {
	Run Run
	// Outcome is the attempt's: the run's own, or OutcomeRetrying when it failed
	// transiently (the run itself then ends failed).
	Outcome  Outcome
	Decision string
	// Code is the target's error code, RetryAfter its Retry-After, when it sent them.
	Code       string
	RetryAfter time.Duration
	// Err is the write's error, for a caller that branches on it (nil when written, and
	// for a re-run answered from its stored run).
	Err error
}

// Rerun runs flow q.FlowID once for source record q.RecordID, read fresh through read.
// The errors are the ones that stop it before any write: the flow is gone (ErrNotFound)
// or disabled (ErrFlowDisabled), the source cannot be read (ErrSourceRead with the
// connector's error), or the store or the trail failed.
func (x *Executor) Rerun(ctx context.Context, read Reader, tenantID string, q RerunRequest) (RerunResult, error) {
	flows, err := x.Store.Flows(ctx, tenantID)
	if err != nil {
		return RerunResult{}, fmt.Errorf("read flows: %w", err)
	}
	i := slices.IndexFunc(flows, func(f Flow) bool { return f.ID == q.FlowID })
	if i < 0 {
		return RerunResult{}, fmt.Errorf("flow %s: %w", q.FlowID, ErrNotFound)
	}
	f := flows[i]
	if !f.Enabled {
		return RerunResult{}, fmt.Errorf("flow %s: %w", f.ID, ErrFlowDisabled)
	}
	ev := Event{EventID: RerunEventPrefix + q.Attempt, Entity: f.Source.Entity, RecordID: q.RecordID, ChangedAt: x.now()}
	// A re-run is its event's one run, so it has the event's id (SoleRun).
	if prev, err := x.Store.Run(ctx, tenantID, EventRunID(tenantID, f.Source.System, ev.EventID)); err == nil {
		return rerunAnswer(prev), nil
	} else if !errors.Is(err, ErrNotFound) {
		return RerunResult{}, err
	}
	rec, err := read.Get(ctx, tenantID, f.Source.System, f.Source.Entity, q.RecordID)
	if err != nil {
		return RerunResult{}, fmt.Errorf("%w: %s %s: %w", ErrSourceRead, f.Source, q.RecordID, err)
	}
	ev.Fields = rec.Fields
	r, err := x.rerunOf(ctx, tenantID, f, flows, ev, q)
	if err != nil {
		return RerunResult{}, err
	}
	st, err := x.Store.StartRuns(ctx, tenantID, f.Source.System, ev.EventID, []Run{r})
	switch {
	case err != nil:
		return RerunResult{}, err
	case !st.New && len(st.IDs) > 0:
		// A concurrent attempt of the same name started it first: its run is the answer.
		prev, err := x.Store.Run(ctx, tenantID, st.IDs[0])
		if err != nil {
			return RerunResult{}, err
		}
		return rerunAnswer(prev), nil
	case r.Outcome != OutcomeRetrying:
		return RerunResult{Run: r, Outcome: r.Outcome, Decision: r.Decision}, nil
	}
	return x.rerunAttempt(ctx, r), nil
}

// rerunOf is the re-run's run: the flow's run for ev, with the approved fix in place of
// the mapped values of its fields.
func (x *Executor) rerunOf(ctx context.Context, tenantID string, f Flow, flows []Flow, ev Event, q RerunRequest) (Run, error) {
	trigger := f.TriggerOrDefault()
	trail, read, err := x.trailFor(ctx, tenantID, f.Source.System, ev, flows, trigger)
	if err != nil {
		return Run{}, err
	}
	r, _ := x.newRun(tenantID, f.Source.System, f, flows, ev, trail, trigger, x.now())
	r.ID = EventRunID(tenantID, f.Source.System, ev.EventID)
	r.trailRead = read
	r.SyncErrorID = q.SyncErrorID
	if r.Pending != nil && len(q.Fix) > 0 {
		fields := maps.Clone(r.Pending.Fields)
		maps.Copy(fields, q.Fix)
		r.Pending.Fields, r.Fields = fields, slices.Sorted(maps.Keys(fields))
	}
	return r, nil
}

// rerunAttempt makes the re-run's one write and stores how it ended.
func (x *Executor) rerunAttempt(ctx context.Context, r Run) RerunResult {
	attempts := r.Attempts
	res, err := x.write(ctx, &r)
	r.UpdatedAt = x.now()
	r.Dropped, r.Looped, r.Superseded = res.Dropped, res.Looped, res.Superseded
	out := RerunResult{Err: err}
	out.Outcome, out.Decision = rerunOutcome(len(r.Pending.Fields), res, err)
	var ce *connector.Error
	if errors.As(err, &ce) {
		out.Code, out.RetryAfter = ce.Code, ce.RetryAfter
	}
	switch out.Outcome {
	case OutcomeRetrying:
		x.end(&r, OutcomeFailed, "this re-run of the sync error failed transiently ("+out.Decision+"); the sync error's retry tries again")
	case OutcomeHeld:
		x.hold(&r, res, out.Decision) // watched by the redrive, as any held run (held.go)
	default:
		x.end(&r, out.Outcome, out.Decision)
	}
	x.releaseClaim(ctx, &r)
	if err := x.Store.SaveRun(ctx, r, attempts); err != nil {
		// The attempt's outcome is the sync error's to record; the run is left retrying
		// and the redrive takes it over, its write replayed under the same key.
		out.Decision += " (the re-run's own record could not be stored)"
	}
	out.Run = r
	return out
}

// rerunOutcome judges a re-run's write as settle does a run's, the match's own errors
// included; a transient one is OutcomeRetrying.
func rerunOutcome(n int, res governance.Result, err error) (Outcome, string) {
	switch {
	case errors.Is(err, errNoCounterpart):
		return OutcomeSkipped, err.Error()
	case errors.Is(err, errMatchRefused):
		return OutcomeFailed, err.Error()
	case errors.Is(err, errCounterpartPending), errors.Is(err, errXRef):
		return OutcomeRetrying, err.Error()
	}
	return delivery.Classify(n, res, err)
}

// rerunAnswer is the result of a re-run that was made already.
func rerunAnswer(r Run) RerunResult {
	if r.Outcome == OutcomeRetrying {
		// Its attempt is in flight, or died and waits for the redrive.
		return RerunResult{Run: r, Outcome: OutcomeRetrying, Decision: "the re-run " + r.ID + " has not ended yet"}
	}
	return RerunResult{Run: r, Outcome: r.Outcome, Decision: r.Decision}
}
