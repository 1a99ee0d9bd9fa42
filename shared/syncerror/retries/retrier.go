package retries

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Retry: the integration that failed runs again, from the source of truth. An error the
// host ERP reported is re-run by the host ERP (the service asks it to, with the approved
// fix written to the record first); a flow run of the service's own is re-run by the flow
// (a fresh read of its source, the mapping, the guard). A stored payload is never sent
// again: it is masked at rest, and its only source is the webhook body. How each origin is
// re-run is the wire's Deliverer; the row is its own retry state: one conditional write
// takes the row for an attempt (retrying, a lease ahead, so an attempt that dies is taken
// over by the schedule), one more records what came of it, listed under the row's error,
// which no attempt changes.

// RetryableClasses are the error classes retried on schedule without a person.
var RetryableClasses = []string{"connection", "intermittent", "rate_limit"}

// DefaultRetrySchedule is the wait before each automatic attempt (Zapier's Autoreplay).
var DefaultRetrySchedule = []time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour}

// DefaultRetryLease bounds one attempt; it exceeds the connector's own retries.
const DefaultRetryLease = 2 * time.Minute

// retryPage bounds the rows one tenant's schedule run takes.
const retryPage = 50

// ParseRetrySchedule reads a schedule such as "5m,30m,1h" (RETRY_SCHEDULE).
func ParseRetrySchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("retry schedule %q: each entry must be a positive duration such as 5m", s)
		}
		out = append(out, d)
	}
	return out, nil
}

// Retrier runs retries: on request, on schedule, and sooner when a system is back.
type Retrier struct {
	Claims  syncerror.ClaimStore
	Deliver syncerror.Deliverer
	Tenants tenant.Reader
	Audit   syncerror.Auditor
	// Schedule overrides DefaultRetrySchedule; Jitter spreads each wait (default ±10%).
	Schedule []time.Duration
	Jitter   func(time.Duration) time.Duration
	Lease    time.Duration
	Now      func() time.Time
	Log      *slog.Logger

	// pulled remembers when each tenant's system last pulled retries forward: every write
	// that lands reports its system healthy, and one look a minute is enough.
	pulledMu sync.Mutex
	pulled   map[string]time.Time
}

// pullEvery bounds how often one tenant's system pulls its retries forward.
const pullEvery = time.Minute

// retryFrom are the statuses a person's retry starts from: an open row, or one approved
// (its fix is in the record; the delivery is what is left).
var retryFrom = []syncerror.Status{syncerror.StatusPending, syncerror.StatusRetrying, syncerror.StatusEscalated, syncerror.StatusApproved}

// Attempt runs one retry of c for actor and returns the row as it ended.
func (rt *Retrier) Attempt(ctx context.Context, actor identity.Identity, c syncerror.Claim) (syncerror.Claim, error) {
	now := rt.now()
	if !slices.Contains(retryFrom, c.Status) || inFlight(c, now) {
		return c, syncerror.ErrNotRetryable
	}
	held, err := rt.Claims.ChangeRetry(ctx, c.TenantID, c.ID, syncerror.RetryChange{From: []syncerror.Status{c.Status}, Attempts: c.Retry.Attempts,
		To: syncerror.StatusRetrying, Begin: true, NextAt: now.Add(rt.lease()), LastError: c.Retry.LastError,
		Entry: syncerror.HistoryEntry{At: now, Actor: actor.Actor, Action: "retry", Note: "attempt " + strconv.Itoa(c.Retry.Attempts+1)}}, now)
	if err != nil {
		return c, err
	}
	d := rt.Deliver.Rerun(ctx, actor.Actor, held, syncerror.RetryKey(held))
	end, err := rt.end(ctx, actor, held, d)
	rt.audit(ctx, actor, held, d)
	if d.Result == syncerror.Delivered {
		// The system took a write: the other retries waiting on it may go now.
		if _, perr := rt.PullForward(ctx, held.TenantID, d.System); perr != nil {
			rt.log().Warn("retries not pulled forward; they run on schedule", "system", d.System, "error", perr)
		}
	}
	return end, err
}

// end records the attempt's outcome on the row it holds: the row's status, and the
// attempt listed under its error. A failed attempt changes neither the error nor its
// diagnosis: the error is the evidence of what failed, and the attempt's own failure is
// judged apart (Delivery.Class) with what to do. Re-diagnosing would only read the same
// original error again.
func (rt *Retrier) end(ctx context.Context, actor identity.Identity, held syncerror.Claim, d syncerror.Delivery) (syncerror.Claim, error) {
	now := rt.now()
	ch := syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: held.Retry.Attempts,
		Entry: syncerror.HistoryEntry{At: now, Actor: actor.Actor},
		Log: syncerror.AppendAttempt(held.Retry.Log, syncerror.RetryAttempt{At: now, Actor: actor.Actor, Result: d.Result, System: d.System,
			Code: d.Code, Class: d.Class, Reason: d.Reason})}
	switch d.Result {
	case syncerror.Delivered:
		ch.To, ch.Resolution = syncerror.StatusResolved, syncerror.ResolutionRetried
		ch.Entry.Action, ch.Entry.Note = "retried", d.Reason
	case syncerror.DeliveryPermanent:
		ch.To, ch.LastError = settled(held), d.Reason
		ch.Entry.Action, ch.Entry.Note = "retry_failed", attemptNote(d)
		if d.Reverted && held.Applied != nil {
			// Only the row's marking is done here: the revert audited itself and taught
			// the knowledge when it was written.
			ch.To, ch.Entry.Action = syncerror.StatusReverted, "revert_found"
		}
	default:
		ch.LastError = d.Reason
		next, ok := rt.next(ctx, held, d.RetryAfter)
		if ok {
			ch.To, ch.NextAt = syncerror.StatusRetrying, next
			ch.Entry.Action = "retry_failed"
			if d.Result == syncerror.DeliveryRequested {
				ch.Entry.Action = "retry_requested"
			}
			ch.Entry.Note = d.Reason + "; next attempt at " + next.Format(time.RFC3339)
		} else {
			ch.To = settled(held)
			ch.Entry.Action, ch.Entry.Note = "retries_exhausted", d.Reason+" (after "+strconv.Itoa(held.Retry.Attempts)+" attempts)"
		}
	}
	row, err := rt.Claims.ChangeRetry(ctx, held.TenantID, held.ID, ch, now)
	if err != nil {
		// The row stays retrying under its lease: the schedule takes it again, and the
		// same idempotency key makes a delivery that landed a replay.
		return held, fmt.Errorf("record retry outcome of %s: %w: %w", held.ID, syncerror.ErrOutcomeNotRecorded, err)
	}
	return row, nil
}

// settled is where a row goes when its retries end without a delivery (and the attempt
// did not find its fix reverted: end marks that row reverted): back to people
// (pending), or, for a row whose fix the approve wrote, back to approved. The record holds
// that fix: reopened, the row could be rejected, or approved and written again (its prior
// values overwritten with the fix's own).
func settled(c syncerror.Claim) syncerror.Status {
	if c.Applied != nil {
		return syncerror.StatusApproved
	}
	return syncerror.StatusPending
}

// attemptNote is a failed attempt in the row's history: its class and code, and why.
func attemptNote(d syncerror.Delivery) string {
	note := d.Reason
	if d.Code != "" {
		note = d.Code + ": " + note
	}
	if d.Class != "" {
		note = d.Class + " (" + note + ")"
	}
	return note
}

// next is when the row's next automatic attempt is due, if it gets one: the tenant has
// auto-retry on and the schedule has attempts left. Retry-After is honoured.
func (rt *Retrier) next(ctx context.Context, c syncerror.Claim, retryAfter time.Duration) (time.Time, bool) {
	sched := rt.schedule()
	if c.Retry.Attempts >= len(sched) || !rt.autoRetry(ctx, c.TenantID) {
		return time.Time{}, false
	}
	return rt.now().Add(max(rt.jitter(sched[c.Retry.Attempts]), retryAfter)), true
}

// Plan puts a freshly diagnosed row of a retryable class on the schedule instead of in
// front of people. A row that was retried already is not planned again.
func (rt *Retrier) Plan(ctx context.Context, c syncerror.Claim, p syncerror.Proposal) error {
	if rt == nil || !slices.Contains(RetryableClasses, p.Class) || c.Retry.Attempts > 0 || !rt.autoRetry(ctx, c.TenantID) {
		return nil
	}
	now := rt.now()
	next := now.Add(rt.jitter(rt.schedule()[0]))
	_, err := rt.Claims.ChangeRetry(ctx, c.TenantID, c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending}, To: syncerror.StatusRetrying, NextAt: next,
		Entry: syncerror.HistoryEntry{At: now, Actor: "schedule:retry", Action: "retry_scheduled",
			Note: p.Class + " error: retried automatically, first at " + next.Format(time.RFC3339)}}, now)
	if errors.Is(err, syncerror.ErrStateChanged) {
		return nil // a person acted first
	}
	return err
}

// RunDue attempts the tenant's due retries and returns how many it attempted. With
// auto-retry switched off, due rows go to people instead.
func (rt *Retrier) RunDue(ctx context.Context, tenantID string) (int, error) {
	if flag, err := syncerror.DisabledFlag(ctx, rt.Tenants, tenantID); err != nil || flag != "" {
		return 0, err
	}
	due, err := rt.Claims.DueRetries(ctx, tenantID, rt.now(), retryPage)
	if err != nil {
		return 0, err
	}
	actor := identity.ForTenant(tenantID, "schedule:retry")
	on := rt.autoRetry(ctx, tenantID)
	n := 0
	var errs []error
	for _, c := range due {
		if !on {
			now := rt.now()
			_, err = rt.Claims.ChangeRetry(ctx, tenantID, c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: c.Retry.Attempts,
				To: settled(c), LastError: c.Retry.LastError,
				Entry: syncerror.HistoryEntry{At: now, Actor: actor.Actor, Action: "retries_stopped", Note: "automatic retry is off for the tenant"}}, now)
		} else {
			_, err = rt.Attempt(ctx, actor, c)
			n++
		}
		if err != nil && !errors.Is(err, syncerror.ErrStateChanged) {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// PullForward makes the tenant's retries waiting on system due now: the system just
// took a write, so it is back ("connection back online").
func (rt *Retrier) PullForward(ctx context.Context, tenantID, system string) (int, error) {
	now := rt.now()
	if !rt.mayPull(tenantID+"\x00"+system, now) {
		return 0, nil
	}
	waiting, err := rt.Claims.DueRetries(ctx, tenantID, now.Add(365*24*time.Hour), retryPage)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range waiting {
		if !c.Retry.NextAt.After(now) || inFlight(c, now) || rt.Deliver.Target(c) != system {
			continue
		}
		_, err := rt.Claims.ChangeRetry(ctx, tenantID, c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: c.Retry.Attempts,
			To: syncerror.StatusRetrying, NextAt: now, LastError: c.Retry.LastError,
			Entry: syncerror.HistoryEntry{At: now, Actor: "schedule:retry", Action: "retry_pulled_forward", Note: system + " accepted a write again"}}, now)
		if err == nil {
			n++
		} else if !errors.Is(err, syncerror.ErrStateChanged) {
			return n, err
		}
	}
	return n, nil
}

func (rt *Retrier) mayPull(key string, now time.Time) bool {
	rt.pulledMu.Lock()
	defer rt.pulledMu.Unlock()
	if last, ok := rt.pulled[key]; ok && now.Sub(last) < pullEvery {
		return false
	}
	if rt.pulled == nil {
		rt.pulled = map[string]time.Time{}
	}
	rt.pulled[key] = now
	return true
}

// inFlight reports whether an attempt holds the row (its lease has not ended).
func inFlight(c syncerror.Claim, now time.Time) bool {
	n := len(c.History)
	return c.Status == syncerror.StatusRetrying && n > 0 && c.History[n-1].Action == "retry" && c.Retry.NextAt.After(now)
}

func (rt *Retrier) audit(ctx context.Context, actor identity.Identity, c syncerror.Claim, d syncerror.Delivery) {
	if rt.Audit == nil {
		return
	}
	result := audit.ResultFailure
	if d.Result == syncerror.Delivered {
		result = audit.ResultSuccess
	}
	details := map[string]any{"result": string(d.Result), "system": d.System, "attempt": c.Retry.Attempts, "source": string(c.Source)}
	for k, v := range map[string]string{"reason": d.Reason, "code": d.Code, "class": d.Class} {
		if v != "" {
			details[k] = v
		}
	}
	if err := rt.Audit.Write(ctx, audit.Entry{Actor: actor, ActionType: audit.TypeSyncError, ActionKey: "syncerror.retry",
		Result: result, Resource: "syncerror/" + c.ID, Details: details}); err != nil {
		rt.log().Error("audit write failed", "actionKey", "syncerror.retry", "error", err)
	}
}

func (rt *Retrier) autoRetry(ctx context.Context, tenantID string) bool {
	if rt.Tenants == nil {
		return true
	}
	cfg, err := rt.Tenants.Get(ctx, tenantID)
	return err == nil && cfg.AutoRetry()
}

func (rt *Retrier) schedule() []time.Duration {
	if len(rt.Schedule) > 0 {
		return rt.Schedule
	}
	return DefaultRetrySchedule
}

func (rt *Retrier) jitter(d time.Duration) time.Duration {
	if rt.Jitter != nil {
		return rt.Jitter(d)
	}
	spread := int64(d / 10)
	if spread <= 0 {
		return d
	}
	return d - time.Duration(spread) + time.Duration(rand.Int64N(2*spread+1))
}

func (rt *Retrier) lease() time.Duration {
	if rt.Lease > 0 {
		return rt.Lease
	}
	return DefaultRetryLease
}

func (rt *Retrier) now() time.Time {
	if rt.Now != nil {
		return rt.Now().UTC()
	}
	return time.Now().UTC()
}

func (rt *Retrier) log() *slog.Logger {
	if rt.Log != nil {
		return rt.Log
	}
	return slog.Default()
}
