// Package tenantrun runs a job over every tenant so that none is starved: each run starts
// at another tenant, gives each tenant a bounded share of the time left, stops before the
// job's deadline (leaving the rest to the next run, and counting them), and tries the
// tenants that ran out of time last the next time. It knows no feature; the scheduled jobs
// (the reconcile, the flow poll and redrive, the finance lease sweep) all use it.
package tenantrun

import (
	"context"
	"errors"
	"slices"
	"time"
)

// DefaultReserve is the time a run keeps before its deadline for what follows the last
// tenant (metrics, logs) and as its minimum share: a tenant is not started with less.
const DefaultReserve = 5 * time.Second

// Plan is one run of a job.
type Plan struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Deadline ends the run (zero: the context's deadline, else none). Each tenant gets at
	// most an equal part of the time left before it, less Reserve.
	Deadline time.Time
	// Reserve overrides DefaultReserve.
	Reserve time.Duration
	// Memory carries which tenants timed out from one run to the next (nil: none): one per
	// job, read once at the start of a run and written once at its end if it changed.
	Memory Memory
}

// memorySaveTime bounds the write of a run's memory, which is made even when the run's
// context has ended (the run's reserve leaves time for it).
const memorySaveTime = 2 * time.Second

// Result says what a run did.
type Result struct {
	Ran      int // tenants fn ran for
	Failed   int // of those, the ones whose fn returned an error (timeouts included)
	TimedOut int // of those, the ones whose share ran out
	// Skipped are the tenants left for the next run because the deadline was near.
	Skipped int
	// Errors are the failures by tenant id, for the caller's log.
	Errors map[string]error
	// MemoryErr is a failure to read or write the plan's memory, for the caller's log: the
	// run itself went on (in the turned order, with nobody tried last).
	MemoryErr error
}

// Run calls fn for each of ids in the plan's order, each under its share of the time.
func Run(ctx context.Context, ids []string, p Plan, fn func(ctx context.Context, id string) error) Result {
	res := Result{Errors: map[string]error{}}
	late, err := load(ctx, p.Memory, ids)
	res.MemoryErr = err
	order := p.order(ids, late.now)
	for i, id := range order {
		share, ok := p.share(ctx, len(order)-i)
		if !ok {
			res.Skipped = len(order) - i
			break
		}
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if share > 0 {
			tctx, cancel = context.WithTimeout(ctx, share)
		}
		err := fn(tctx, id)
		// Out of its share (or of a bound of its own): not the whole run ending.
		timedOut := ctx.Err() == nil && (errors.Is(tctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded))
		cancel()
		res.Ran++
		if timedOut {
			late.now[id] = true
		} else {
			delete(late.now, id)
		}
		if timedOut {
			res.TimedOut++
		}
		if err != nil {
			res.Failed++
			res.Errors[id] = err
		}
	}
	if store, changed := late.changed(); p.Memory != nil && res.MemoryErr == nil && changed {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memorySaveTime)
		res.MemoryErr = p.Memory.SetLate(sctx, store)
		cancel()
	}
	return res
}

// order turns ids by the minute, so each run starts at another tenant, then moves the
// ones that timed out last time to the end (keeping their turned order).
func (p Plan) order(ids []string, late map[string]bool) []string {
	ids = slices.Clone(ids)
	if n := len(ids); n > 1 {
		k := int(p.now().Unix()/60) % n
		ids = slices.Concat(ids[k:], ids[:k])
	}
	var first, last []string
	for _, id := range ids {
		if late[id] {
			last = append(last, id)
		} else {
			first = append(first, id)
		}
	}
	return append(first, last...)
}

// share is the time the next of left tenants may take: an equal part of what is left
// before the deadline less the reserve. ok is false when less than the reserve is left;
// share is 0 (unbounded) when the run has no deadline.
func (p Plan) share(ctx context.Context, left int) (share time.Duration, ok bool) {
	var remaining time.Duration
	if !p.Deadline.IsZero() {
		remaining = p.Deadline.Sub(p.now())
	} else if d, has := ctx.Deadline(); has {
		remaining = time.Until(d) // the context's deadline is on the real clock
	} else {
		return 0, true
	}
	reserve := p.Reserve
	if reserve <= 0 {
		reserve = DefaultReserve
	}
	budget := remaining - reserve
	if budget < reserve {
		return 0, false
	}
	return budget / time.Duration(left), true
}

func (p Plan) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}
