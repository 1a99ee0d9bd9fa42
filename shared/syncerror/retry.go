package syncerror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	"github.com/syncassist/syncassist/shared/tenant"
)

// Retry: a row's failed delivery is sent again, with the fix applied if one was approved,
// to the system that refused it. The write itself is the flow executor's (see the wire's
// Deliverer); the row is its own retry state: one conditional write takes the row for an
// attempt (retrying, a lease ahead, so an attempt that dies is taken over by the
// schedule), one more records what came of it.

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

// DeliveryResult is what came of sending a delivery again.
type DeliveryResult string

// Delivery results.
const (
	Delivered         DeliveryResult = "delivered"
	DeliveryTransient DeliveryResult = "transient"
	DeliveryPermanent DeliveryResult = "permanent"
	// DeliveryRequested: the tenant has no connector for the system, so the host ERP was
	// asked to re-run the sync itself; its answer is read at the next attempt.
	DeliveryRequested DeliveryResult = "requested"
)

// Delivery is one attempt's outcome, fit for operators (no values).
type Delivery struct {
	Result     DeliveryResult
	System     string
	Reason     string
	Code       string
	RetryAfter time.Duration
}

// Deliverer sends a row's record again to the system that refused it.
type Deliverer interface {
	// Target names the system a row's delivery goes to.
	Target(c Claim) string
	// Redeliver writes fields as c's record to its target, with key as the idempotency
	// key of every attempt of the same content.
	Redeliver(ctx context.Context, actor string, c Claim, fields map[string]any, key string) Delivery
}

// Retrier runs retries: on request, on schedule, and sooner when a system is back.
type Retrier struct {
	Claims  ClaimStore
	Deliver Deliverer
	// Queue takes the re-diagnosis of a row whose retry failed for good.
	Queue   Queue
	Tenants tenant.Reader
	Audit   Auditor
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

// ErrNotRetryable means the row is in a state no retry starts from.
var ErrNotRetryable = errors.New("the sync error cannot be retried in its state")

// retryFrom are the statuses a person's retry starts from: an open row, or one approved
// (its fix is in the record; the delivery is what is left).
var retryFrom = []Status{StatusPending, StatusRetrying, StatusEscalated, StatusApproved}

// Attempt runs one retry of c for actor and returns the row as it ended.
func (rt *Retrier) Attempt(ctx context.Context, actor identity.Identity, c Claim) (Claim, error) {
	now := rt.now()
	if !slices.Contains(retryFrom, c.Status) || inFlight(c, now) {
		return c, ErrNotRetryable
	}
	held, err := rt.Claims.ChangeRetry(ctx, c.TenantID, c.ID, RetryChange{From: []Status{c.Status}, Attempts: c.Retry.Attempts,
		To: StatusRetrying, Begin: true, NextAt: now.Add(rt.lease()), LastError: c.Retry.LastError,
		Entry: HistoryEntry{At: now, Actor: actor.Actor, Action: "retry", Note: "attempt " + strconv.Itoa(c.Retry.Attempts+1)}}, now)
	if err != nil {
		return c, err
	}
	fields := retryFields(held)
	d := rt.Deliver.Redeliver(ctx, actor.Actor, held, fields, RetryKey(held.ID, fields))
	end, err := rt.end(ctx, actor, held, d)
	rt.audit(ctx, actor, held, d)
	if d.Result == Delivered {
		// The system took a write: the other retries waiting on it may go now.
		if _, perr := rt.PullForward(ctx, held.TenantID, d.System); perr != nil {
			rt.log().Warn("retries not pulled forward; they run on schedule", "system", d.System, "error", perr)
		}
	}
	return end, err
}

// end records the attempt's outcome on the row it holds.
func (rt *Retrier) end(ctx context.Context, actor identity.Identity, held Claim, d Delivery) (Claim, error) {
	now := rt.now()
	ch := RetryChange{From: []Status{StatusRetrying}, Attempts: held.Retry.Attempts,
		Entry: HistoryEntry{At: now, Actor: actor.Actor}}
	switch d.Result {
	case Delivered:
		ch.To, ch.Resolution = StatusResolved, ResolutionRetried
		ch.Entry.Action, ch.Entry.Note = "retried", "delivered to "+d.System
	case DeliveryPermanent:
		ch.To, ch.LastError, ch.Rediagnose = StatusPending, d.Reason, true
		ch.ErrorCode, ch.Message = d.Code, d.Reason
		ch.Entry.Action, ch.Entry.Note = "retry_failed", d.Reason+"; diagnosed again"
	default:
		ch.LastError = d.Reason
		next, ok := rt.next(ctx, held, d.RetryAfter)
		if ok {
			ch.To, ch.NextAt = StatusRetrying, next
			ch.Entry.Action = "retry_failed"
			if d.Result == DeliveryRequested {
				ch.Entry.Action = "retry_requested"
			}
			ch.Entry.Note = d.Reason + "; next attempt at " + next.Format(time.RFC3339)
		} else {
			ch.To = StatusPending
			ch.Entry.Action, ch.Entry.Note = "retries_exhausted", d.Reason+" (after "+strconv.Itoa(held.Retry.Attempts)+" attempts)"
		}
	}
	row, err := rt.Claims.ChangeRetry(ctx, held.TenantID, held.ID, ch, now)
	if err != nil {
		// The row stays retrying under its lease: the schedule takes it again, and the
		// same idempotency key makes a delivery that landed a replay.
		return held, fmt.Errorf("record retry outcome of %s: %w", held.ID, err)
	}
	if ch.Rediagnose && rt.Queue != nil {
		if err := rt.Queue.Send(ctx, Message{TenantID: row.TenantID, ID: row.ID}); err != nil {
			rt.log().Warn("re-diagnosis enqueue failed; the reconcile re-enqueues it", "id", row.ID, "error", err)
		}
	}
	return row, nil
}

// next is when the row's next automatic attempt is due, if it gets one: the tenant has
// auto-retry on and the schedule has attempts left. Retry-After is honoured.
func (rt *Retrier) next(ctx context.Context, c Claim, retryAfter time.Duration) (time.Time, bool) {
	sched := rt.schedule()
	if c.Retry.Attempts >= len(sched) || !rt.autoRetry(ctx, c.TenantID) {
		return time.Time{}, false
	}
	return rt.now().Add(max(rt.jitter(sched[c.Retry.Attempts]), retryAfter)), true
}

// Plan puts a freshly diagnosed row of a retryable class on the schedule instead of in
// front of people. A row that was retried already (re-diagnosed after a retry failed for
// good) is not planned again.
func (rt *Retrier) Plan(ctx context.Context, c Claim, p Proposal) error {
	if rt == nil || !slices.Contains(RetryableClasses, p.Class) || c.Retry.Attempts > 0 || !rt.autoRetry(ctx, c.TenantID) {
		return nil
	}
	now := rt.now()
	next := now.Add(rt.jitter(rt.schedule()[0]))
	_, err := rt.Claims.ChangeRetry(ctx, c.TenantID, c.ID, RetryChange{From: []Status{StatusPending}, To: StatusRetrying, NextAt: next,
		Entry: HistoryEntry{At: now, Actor: "schedule:retry", Action: "retry_scheduled",
			Note: p.Class + " error: retried automatically, first at " + next.Format(time.RFC3339)}}, now)
	if errors.Is(err, ErrStateChanged) {
		return nil // a person acted first
	}
	return err
}

// RunDue attempts the tenant's due retries and returns how many it attempted. With
// auto-retry switched off, due rows go to people instead.
func (rt *Retrier) RunDue(ctx context.Context, tenantID string) (int, error) {
	if flag, err := disabledFlag(ctx, rt.Tenants, tenantID); err != nil || flag != "" {
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
			_, err = rt.Claims.ChangeRetry(ctx, tenantID, c.ID, RetryChange{From: []Status{StatusRetrying}, Attempts: c.Retry.Attempts,
				To: StatusPending, LastError: c.Retry.LastError,
				Entry: HistoryEntry{At: now, Actor: actor.Actor, Action: "retries_stopped", Note: "automatic retry is off for the tenant"}}, now)
		} else {
			_, err = rt.Attempt(ctx, actor, c)
			n++
		}
		if err != nil && !errors.Is(err, ErrStateChanged) {
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
		_, err := rt.Claims.ChangeRetry(ctx, tenantID, c.ID, RetryChange{From: []Status{StatusRetrying}, Attempts: c.Retry.Attempts,
			To: StatusRetrying, NextAt: now, LastError: c.Retry.LastError,
			Entry: HistoryEntry{At: now, Actor: "schedule:retry", Action: "retry_pulled_forward", Note: system + " accepted a write again"}}, now)
		if err == nil {
			n++
		} else if !errors.Is(err, ErrStateChanged) {
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
func inFlight(c Claim, now time.Time) bool {
	n := len(c.History)
	return c.Status == StatusRetrying && n > 0 && c.History[n-1].Action == "retry" && c.Retry.NextAt.After(now)
}

// retryFields are the record's fields as the retry sends them: the payload, with the
// row's fix applied when one was approved (written to the record already).
func retryFields(c Claim) map[string]any {
	fields := map[string]any{}
	_ = json.Unmarshal(c.Record.Payload, &fields)
	if c.Applied != nil {
		for _, f := range fixOf(c) {
			fields[f.Path] = f.After
		}
	}
	return fields
}

// RetryKey is the idempotency key of a retry: the same content always carries the same
// key, so an attempt that wrote and died is replayed by the target, never applied twice.
func RetryKey(claimID string, fields map[string]any) string {
	b, _ := json.Marshal(fields) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return claimID + "-r" + hex.EncodeToString(sum[:8])
}

func (rt *Retrier) audit(ctx context.Context, actor identity.Identity, c Claim, d Delivery) {
	if rt.Audit == nil {
		return
	}
	result := audit.ResultFailure
	if d.Result == Delivered {
		result = audit.ResultSuccess
	}
	details := map[string]any{"result": string(d.Result), "system": d.System, "attempt": c.Retry.Attempts}
	if d.Reason != "" {
		details["reason"] = d.Reason
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
