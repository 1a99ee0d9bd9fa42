package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// How a run of a flow with a Match finds its target record; the cross-reference's
// comment (xref.go) says why this makes one counterpart and survives a crash.

var (
	// errCounterpartPending: another run holds the source record's claim and is still
	// finding or creating the counterpart; this run waits for it (retrying).
	errCounterpartPending = errors.New("the counterpart is being found or created by another run")
	// errNoCounterpart: none was found and the flow does not create (skipped).
	errNoCounterpart = errors.New("no counterpart found")
	// errMatchRefused: the match cannot pick a record, or a create's outcome is unknown
	// and cannot be checked; a person has to look (failed, with a sync error).
	errMatchRefused = errors.New("the counterpart cannot be determined")
	// errXRef: the cross-reference could not be read or written (retrying).
	errXRef = errors.New("the cross-reference is unavailable")
)

// write makes the run's write: to the record with the source's id, or for a flow with a
// Match to the counterpart it finds, matches or creates.
func (x *Executor) write(ctx context.Context, r *Run) (governance.Result, error) {
	if r.Pending.Match == nil {
		r.TargetID, r.TargetAction = r.RecordID, ActionUpdated
		return x.guarded(ctx, r, governance.WriteRequest{RecordID: r.RecordID}, r.RecordID)
	}
	if x.XRefs == nil || x.Finder == nil {
		return governance.Result{}, fmt.Errorf("%w: the executor has no cross-reference", errXRef)
	}
	e, err := x.claim(ctx, r)
	if err != nil {
		return governance.Result{}, err
	}
	if e.State == XRefLinked {
		r.TargetID, r.TargetAction = e.Target.ID, ActionUpdated
		if e.LinkedBy == r.ID {
			r.TargetAction = e.Action
			if done, err := x.approvedCreateMade(ctx, r); done || err != nil {
				return madeResult(r, e.Target.ID), err
			}
		}
		return x.guarded(ctx, r, governance.WriteRequest{RecordID: e.Target.ID}, e.Anchor)
	}
	// A claim marked Creating is kept whatever becomes of this run (see releaseClaim).
	r.claimed = !e.Creating
	return x.resolve(ctx, r, e)
}

// claim returns the source record's entry: linked, or pending and held by r (claimed
// now, held since an earlier attempt, or taken over from a run that ended).
func (x *Executor) claim(ctx context.Context, r *Run) (XRef, error) {
	now := x.now()
	src := Ref{System: r.Source.System, Entity: r.Source.Entity, ID: r.RecordID}
	// Most changes are of records linked long ago: one read answers them.
	if e, err := x.XRefs.XRef(ctx, r.TenantID, src, r.Target); err == nil && e.State == XRefLinked {
		return e, nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return XRef{}, fmt.Errorf("%w: %w", errXRef, err)
	}
	want := XRef{Source: src, Target: Ref{System: r.Target.System, Entity: r.Target.Entity}, State: XRefPending,
		Anchor: src.ID, ClaimedBy: r.ID, FlowID: r.FlowID, CreatedAt: now, UpdatedAt: now}
	e, err := x.XRefs.ClaimXRef(ctx, r.TenantID, want)
	switch {
	case err == nil:
		return want, nil
	case !errors.Is(err, ErrTaken):
		return XRef{}, fmt.Errorf("%w: %w", errXRef, err)
	case e.State == XRefLinked || e.ClaimedBy == r.ID:
		return e, nil
	}
	holder, err := x.Store.Run(ctx, r.TenantID, e.ClaimedBy)
	switch {
	case err == nil && (holder.Outcome == OutcomeRetrying || holder.Outcome == OutcomeHeld && (e.Creating || holder.NextAttemptAt != nil)):
		// A held run is watched (held.go) and makes its write once approved: the claim
		// stays its own, or its approved write would meet a record another run made. A
		// held create from before runs were watched may still be sent by its release.
		return XRef{}, fmt.Errorf("%w (run %s)", errCounterpartPending, e.ClaimedBy)
	case err != nil && !errors.Is(err, ErrNotFound):
		return XRef{}, fmt.Errorf("%w: %w", errXRef, err)
	}
	// The holder ended without linking or releasing (it stopped between the two): the
	// claim is this run's now, its Creating mark kept so a possible create is looked for.
	prev := e.ClaimedBy
	e.ClaimedBy, e.UpdatedAt = r.ID, now
	if err := x.XRefs.UpdateXRef(ctx, r.TenantID, e, prev); err != nil {
		if errors.Is(err, ErrTaken) {
			return XRef{}, fmt.Errorf("%w (taken over by another run)", errCounterpartPending)
		}
		return XRef{}, fmt.Errorf("%w: %w", errXRef, err)
	}
	return e, nil
}

// resolve finds or makes the counterpart of a claimed entry, links it and writes it.
func (x *Executor) resolve(ctx context.Context, r *Run, e XRef) (governance.Result, error) {
	m, key := r.Pending.Match, r.Pending.Key
	if r.Pending.Created != "" {
		return x.linkAndWrite(ctx, r, e, r.Pending.Created, ActionCreated)
	}
	if m.By != MatchNone && key == "" {
		return governance.Result{}, fmt.Errorf("%w: the change does not carry %s, which the match needs", errNoCounterpart, m.keyName())
	}
	if m.By == MatchExternalID && upserts(r.Target.System) {
		// The vendor's upsert finds or creates by the key in one idempotent write.
		res, err := x.guarded(ctx, r, governance.WriteRequest{RecordID: key, UpsertKey: m.Field}, e.Anchor)
		if !written(err) || res.Written.Record.ID == "" {
			return res, err
		}
		action := ActionMatched
		if res.Written.Created || e.Creating {
			action = ActionCreated
		}
		return res, x.link(ctx, r, e, res.Written.Record.ID, action)
	}
	if m.By != MatchNone {
		ids, err := x.Finder.Find(ctx, r.TenantID, r.Target.System, r.Target.Entity, m.Field, key)
		switch {
		case err != nil:
			return governance.Result{}, fmt.Errorf("governance: find %s: %w", r.Target, err)
		case len(ids) > 1:
			return governance.Result{}, fmt.Errorf("%w: several %s records have this %s", errMatchRefused, r.Target, m.Field)
		case len(ids) == 1:
			action := ActionMatched
			if e.Creating {
				action = ActionCreated
			}
			return x.linkAndWrite(ctx, r, e, ids[0], action)
		}
		if until := e.createMayLandUntil(r.Target.System); e.Creating && x.now().Before(until) {
			return governance.Result{}, &createLanding{until: until, target: r.Target, field: m.Field}
		}
	} else if e.Creating {
		// The claim stays with its Creating mark (r.claimed is false).
		return governance.Result{}, fmt.Errorf("%w: an earlier attempt's create of %s may have reached it and the flow has no match key to look for it; check %s and link or delete the record",
			errMatchRefused, r.Target, r.Target.System)
	}
	if !m.Create {
		return governance.Result{}, fmt.Errorf("%w and the flow does not create one", errNoCounterpart)
	}
	return x.create(ctx, r, e)
}

// create marks the claim Creating, creates the counterpart with the match key set (so a
// later attempt finds it) and links it.
func (x *Executor) create(ctx context.Context, r *Run, e XRef) (governance.Result, error) {
	m := r.Pending.Match
	fields := r.Pending.Fields
	if m.By != MatchNone {
		if _, ok := fields[m.Field]; !ok {
			fields = maps.Clone(fields)
			fields[m.Field] = r.Pending.keyField()
		}
	}
	now := x.now()
	e.Creating, e.CreatingAt, e.UpdatedAt = true, &now, now
	if err := x.XRefs.UpdateXRef(ctx, r.TenantID, e, r.ID); err != nil {
		return governance.Result{}, fmt.Errorf("%w: %w", errXRef, err)
	}
	r.claimed = false // marked: kept until linked, however the run ends (releaseClaim)
	res, err := x.guarded(ctx, r, governance.WriteRequest{Create: true, Fields: fields}, e.Anchor)
	if !written(err) {
		if !connector.MayHaveApplied(err) {
			// Nothing was made, nor will be (a held create is sent by this run once
			// approved, which marks it again first: held.go): the next attempt need not
			// look for it, and the claim, unmarked, is released again if the run ends.
			e.Creating, e.CreatingAt = false, nil
			r.claimed = x.XRefs.UpdateXRef(ctx, r.TenantID, e, r.ID) == nil
		}
		return res, err
	}
	if res.Written.Record.ID == "" {
		// Every field was dropped (source_wins): nothing was created.
		return res, err
	}
	r.Pending.Created = res.Written.Record.ID
	if lerr := x.link(ctx, r, e, res.Written.Record.ID, ActionCreated); lerr != nil {
		return res, lerr
	}
	return res, err
}

// linkAndWrite links a found counterpart and writes the run's fields to it.
func (x *Executor) linkAndWrite(ctx context.Context, r *Run, e XRef, id, action string) (governance.Result, error) {
	if err := x.link(ctx, r, e, id, action); err != nil {
		return governance.Result{}, err
	}
	if action == ActionCreated {
		if done, err := x.approvedCreateMade(ctx, r); done || err != nil {
			return madeResult(r, id), err
		}
	}
	return x.guarded(ctx, r, governance.WriteRequest{RecordID: id}, e.Anchor)
}

// link stores the entry as linked to id, in both directions.
func (x *Executor) link(ctx context.Context, r *Run, e XRef, id, action string) error {
	e.Target.ID, e.State, e.Action, e.LinkedBy, e.Creating, e.CreatingAt, e.ClaimedBy, e.UpdatedAt = id, XRefLinked, action, r.ID, false, nil, r.ID, x.now()
	r.TargetID, r.TargetAction = id, action
	if err := x.XRefs.LinkXRef(ctx, r.TenantID, e); err != nil {
		return fmt.Errorf("%w: linking %s to %s: %w", errXRef, e.Source.ID, id, err)
	}
	r.claimed = false
	return nil
}

// written says the guard's answer means the write reached the target.
func written(err error) bool { return err == nil || errors.Is(err, governance.ErrNotRecorded) }

// settleMatch ends or keeps a run on the match's own errors; false for every other.
func (x *Executor) settleMatch(ctx context.Context, r *Run, err error) bool {
	var late *createLanding
	switch {
	case errors.Is(err, errNoCounterpart):
		x.end(r, OutcomeSkipped, err.Error())
	case errors.Is(err, errMatchRefused):
		x.fail(ctx, r, err.Error())
	case errors.As(err, &late):
		// Bounded by the vendor's timeout, not MaxClaimWait: the create is the run's own, and
		// a run approved days after its change (held.go) would fail while it may land.
		waitUntil(r, err, late.until)
	case errors.Is(err, errCounterpartPending):
		x.wait(ctx, r, err)
	case errors.Is(err, errXRef):
		if r.Attempts > len(x.backoff()) {
			x.fail(ctx, r, fmt.Sprintf("still failing after %d attempts: %s", r.Attempts, err))
			return true
		}
		next := x.now().Add(x.backoff()[r.Attempts-1])
		r.Outcome, r.NextAttemptAt = OutcomeRetrying, &next
		r.Decision = "retried at " + next.UTC().Format("2006-01-02T15:04:05Z") + ": " + err.Error()
	default:
		return false
	}
	return true
}

// Waiting on another run's claim.
const (
	// ClaimWait is how soon a run that waits on another run's claim may be attempted
	// again: the holder is usually done within a second, and the redrive's schedule
	// decides when it is actually taken up.
	ClaimWait = 5 * time.Second
	// MaxClaimWait is how long a run waits on other runs' claims before it fails.
	MaxClaimWait = 24 * time.Hour
)

// wait keeps a run that met another run's claim retrying. The attempt wrote nothing, so
// it does not count against the run's attempts (their backoff is for failing writes);
// the wait is bounded by time instead.
func (x *Executor) wait(ctx context.Context, r *Run, err error) {
	if x.now().Sub(r.CreatedAt) > MaxClaimWait {
		x.fail(ctx, r, fmt.Sprintf("waited %s for the counterpart: %s", MaxClaimWait, err))
		return
	}
	waitUntil(r, err, x.now().Add(ClaimWait))
}

// waitUntil keeps r retrying, its next attempt at next, without spending an attempt.
func waitUntil(r *Run, err error, next time.Time) {
	r.Attempts--
	r.Outcome, r.NextAttemptAt = OutcomeRetrying, &next
	r.Decision = "waiting: " + err.Error()
}

// releaseClaim gives up the source record's claim when the run ended without linking a
// counterpart, so the next change of the record can find or create it. A held run keeps
// it: it makes its write once an approver approves it (held.go). A claim marked Creating is never
// given up (r.claimed is false): a create may have made the record, and released, the
// mark would be lost with it, so that the next run (a sync error's next re-run, whose run
// ends after its one attempt, or the next change after a run's last attempt) created a
// second record; kept, that run takes the claim over and looks for the record by its
// match key, or refuses. What it does not release (a store failure) is taken over by the
// next run once it sees this one ended.
func (x *Executor) releaseClaim(ctx context.Context, r *Run) {
	switch {
	case r.Outcome != OutcomeWritten:
		r.TargetAction = ""
	case r.TargetAction == ActionCreated || r.TargetAction == ActionMatched:
		r.Decision += "; " + r.TargetAction + " the counterpart " + string(r.Target.System) + "/" + r.Target.Entity + "/" + r.TargetID
	}
	if !r.claimed || r.Outcome == OutcomeRetrying || r.Outcome == OutcomeHeld {
		return
	}
	src := Ref{System: r.Source.System, Entity: r.Source.Entity, ID: r.RecordID}
	if err := x.XRefs.ReleaseXRef(ctx, r.TenantID, src, r.Target, r.ID); err != nil {
		httpapi.Logger(ctx).Error("cross-reference claim not released; the next run of the record takes it over",
			"tenant", r.TenantID, "run", r.ID, "error", err)
	}
}

// keyName names what the match key is taken from.
func (m *Match) keyName() string {
	if m.SourceField == "" {
		return "a record id"
	}
	return "the field " + m.SourceField
}

// createLanding is a lookup that found nothing while an earlier attempt's create, whose
// answer was lost, may still land: the vendor may be processing it until its own request
// timeout (connector.LateCommit), and creating again meanwhile could make two records.
// The run waits until then (no attempt spent, no lookup each few seconds), then looks
// once more: found, it is linked as created; not found, the vendor failed it, and it is
// created. It is a kind of errCounterpartPending, so a re-run is retried later.
type createLanding struct {
	until  time.Time
	target Endpoint
	field  string
}

func (c *createLanding) Error() string {
	return fmt.Sprintf("an earlier attempt's create of %s may still land (its answer was lost, and the vendor may finish a request until %s); no record with this %s yet, looked for again then",
		c.target, c.until.UTC().Format(time.RFC3339), c.field)
}

func (c *createLanding) Is(target error) bool { return target == errCounterpartPending }

// createMayLandUntil is when a create marked on e can no longer land at system: the
// vendor's timeout after it was sent. An entry marked before CreatingAt was kept counts
// from its last change, which is no earlier.
func (e XRef) createMayLandUntil(system connector.System) time.Time {
	since := e.UpdatedAt
	if e.CreatingAt != nil {
		since = *e.CreatingAt
	}
	return since.Add(connector.LateCommit(system))
}
