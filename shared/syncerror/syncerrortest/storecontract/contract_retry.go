package storecontract

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

type readyFunc func(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim

// runRetryContract covers every retry and resolve state change: take for an attempt,
// each outcome, the schedule's listing and the resolve.
func runRetryContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)
	begin := func(from syncerror.Status, attempts int, lease time.Time) syncerror.RetryChange {
		return syncerror.RetryChange{From: []syncerror.Status{from}, Attempts: attempts, To: syncerror.StatusRetrying,
			Begin: true, NextAt: lease, Entry: entry("retry")}
	}

	t.Run("retry: begin, transient, then delivered resolves", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		held, err := s.ChangeRetry(ctx, "t1", c.ID, begin(syncerror.StatusPending, 0, base.Add(2*time.Minute)), base)
		if err != nil || held.Status != syncerror.StatusRetrying || held.Retry.Attempts != 1 || !held.Retry.NextAt.Equal(base.Add(2*time.Minute)) {
			t.Fatalf("begin: %+v err=%v", held.Retry, err)
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, begin(syncerror.StatusPending, 0, base), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a second begin from the state seen before: err=%v", err)
		}
		next := base.Add(5 * time.Minute)
		row, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: 1,
			To: syncerror.StatusRetrying, NextAt: next, LastError: "unavailable", Entry: entry("retry_failed")}, base)
		if err != nil || row.Retry.LastError != "unavailable" || !row.Retry.NextAt.Equal(next) || row.Retry.Attempts != 1 {
			t.Fatalf("transient: %+v err=%v", row.Retry, err)
		}
		if due, err := s.DueRetries(ctx, "t1", next.Add(-time.Second), 10); err != nil || len(due) != 0 {
			t.Fatalf("due before its time: %v err=%v", claimIDs(due), err)
		}
		if due, err := s.DueRetries(ctx, "t1", next, 10); err != nil || len(due) != 1 || due[0].ID != c.ID {
			t.Fatalf("due at its time: %v err=%v", claimIDs(due), err)
		}
		if due, _ := s.DueRetries(ctx, "t2", next, 10); len(due) != 0 {
			t.Fatalf("other tenant's due retries: %v", claimIDs(due))
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, begin(syncerror.StatusRetrying, 1, next.Add(2*time.Minute)), next); err != nil {
			t.Fatal(err)
		}
		row, err = s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: 2,
			To: syncerror.StatusResolved, Resolution: syncerror.ResolutionRetried, Entry: entry("retried")}, next)
		if err != nil || row.Status != syncerror.StatusResolved || row.Retry.Resolution != syncerror.ResolutionRetried ||
			!row.Retry.NextAt.IsZero() || row.Retry.LastError != "" || row.Retry.Attempts != 2 {
			t.Fatalf("resolved: %s %+v err=%v", row.Status, row.Retry, err)
		}
		got, _ := s.Get(ctx, "t1", c.ID)
		if n := len(got.History); n != 5 || got.History[n-1].Action != "retried" || got.Retry.Attempts != 2 {
			t.Fatalf("stored row %+v history %d", got.Retry, n)
		}
		if due, _ := s.DueRetries(ctx, "t1", next.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("a resolved row is due: %v", claimIDs(due))
		}
	})

	t.Run("retry: failed attempts are listed under the error, which stays as received", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c, err := s.Get(ctx, "t1", ready(t, s, "t1", "e-1", base).ID)
		if err != nil || c.Proposal == nil {
			t.Fatalf("the diagnosed row %+v err=%v", c, err)
		}
		var log []syncerror.RetryAttempt
		at := base
		for i := range 3 {
			if _, err := s.ChangeRetry(ctx, "t1", c.ID, begin(syncerror.StatusPending, i, at.Add(time.Minute)), at); err != nil {
				t.Fatal(err)
			}
			at = at.Add(time.Minute)
			log = append(log, syncerror.RetryAttempt{At: at, Actor: "alice", Result: syncerror.DeliveryPermanent, System: "hosterp",
				Code: fmt.Sprintf("INSUFFICIENT_PERMISSION_%d", i), Class: "permission", Reason: "the role may not write"})
			row, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying}, Attempts: i + 1,
				To: syncerror.StatusPending, LastError: "forbidden", Log: append([]syncerror.RetryAttempt(nil), log...),
				Entry: entry("retry_failed")}, at)
			if err != nil || row.Status != syncerror.StatusPending || len(row.Retry.Log) != i+1 {
				t.Fatalf("attempt %d: %s %+v err=%v", i, row.Status, row.Retry.Log, err)
			}
		}
		// A change that carries no list (the schedule pulling forward, a resolve) keeps it.
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending}, AnyAttempts: true,
			To: syncerror.StatusRetrying, NextAt: at.Add(time.Hour), Entry: entry("retry_scheduled")}, at); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Record.ErrorCode != c.Record.ErrorCode || got.Record.Message != c.Record.Message || string(got.Record.Payload) != string(c.Record.Payload) ||
			got.Diagnosis != syncerror.DiagnosisReady || got.Proposal == nil || got.Proposal.Class != c.Proposal.Class {
			t.Fatalf("the error or its diagnosis changed: %+v diagnosis %s", got.Record, got.Diagnosis)
		}
		if len(got.Retry.Log) != 3 {
			t.Fatalf("attempts %+v", got.Retry.Log)
		}
		for i, a := range got.Retry.Log {
			if !a.At.Equal(log[i].At) || a.Code != log[i].Code || a.Result != log[i].Result || a.Class != "permission" ||
				a.System != "hosterp" || a.Actor != "alice" || a.Reason != log[i].Reason {
				t.Fatalf("attempt %d stored as %+v, want %+v", i, a, log[i])
			}
		}
		if p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusRetrying, Search: "shipcountry", Limit: 5}); err != nil || len(p.Claims) != 1 {
			t.Fatalf("search by the error as received: %v err=%v", claimIDs(p.Claims), err)
		}
	})

	t.Run("concurrent retries take one attempt", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		n := winners(t, 10, func(int) (bool, error) {
			_, err := s.ChangeRetry(ctx, "t1", c.ID, begin(syncerror.StatusPending, 0, base.Add(time.Minute)), base)
			return won(err)
		})
		if got, _ := s.Get(ctx, "t1", c.ID); n != 1 || got.Retry.Attempts != 1 {
			t.Fatalf("%d begins won, %d attempts", n, got.Retry.Attempts)
		}
	})

	t.Run("resolve from open rows only", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		resolve := func(id, reason string) (syncerror.Claim, error) {
			return s.ChangeRetry(ctx, "t1", id, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending,
				syncerror.StatusRetrying, syncerror.StatusEscalated}, AnyAttempts: true, To: syncerror.StatusResolved,
				Resolution: reason, Entry: entry("resolved")}, base)
		}
		a, b, c := ready(t, s, "t1", "e-1", base), ready(t, s, "t1", "e-2", base), ready(t, s, "t1", "e-3", base)
		if err := s.Decide(ctx, "t1", b.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{a.ID, b.ID} {
			row, err := resolve(id, syncerror.ResolutionFixedAtSource)
			if err != nil || row.Status != syncerror.StatusResolved || row.Retry.Resolution != syncerror.ResolutionFixedAtSource {
				t.Fatalf("resolve %s: %s %+v err=%v", id, row.Status, row.Retry, err)
			}
		}
		for _, id := range []string{a.ID, c.ID} {
			if _, err := resolve(id, syncerror.ResolutionDuplicate); !errors.Is(err, syncerror.ErrStateChanged) {
				t.Fatalf("resolve a closed row %s: err=%v", id, err)
			}
		}
		if _, err := resolve("se_missing", syncerror.ResolutionDuplicate); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
		page, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusResolved, Limit: 10})
		if err != nil || len(page.Claims) != 2 {
			t.Fatalf("resolved listing %v err=%v", claimIDs(page.Claims), err)
		}
	})

	t.Run("an idle change waits for a live attempt", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		resolve := func(at time.Time) error {
			_, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending, syncerror.StatusRetrying},
				AnyAttempts: true, Idle: true, To: syncerror.StatusResolved, Resolution: "fixed_at_source", Entry: entry("resolved")}, at)
			return err
		}
		held, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending},
			To: syncerror.StatusRetrying, Begin: true, NextAt: base.Add(2 * time.Minute), Entry: entry("retry")}, base)
		if err != nil {
			t.Fatal(err)
		}
		if err := resolve(base.Add(time.Minute)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("resolved under a live attempt: err=%v", err)
		}
		// The attempt records its outcome (next attempt later): the row is idle again.
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			Attempts: held.Retry.Attempts, To: syncerror.StatusRetrying, NextAt: base.Add(time.Hour), Entry: entry("retry_failed")}, base); err != nil {
			t.Fatal(err)
		}
		if err := resolve(base.Add(time.Minute)); err != nil {
			t.Fatalf("resolve of an idle retrying row: %v", err)
		}
		// An attempt that died is idle once its lease ends.
		d := ready(t, s, "t1", "e-2", base)
		if _, err := s.ChangeRetry(ctx, "t1", d.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending},
			To: syncerror.StatusRetrying, Begin: true, NextAt: base.Add(2 * time.Minute), Entry: entry("retry")}, base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ChangeRetry(ctx, "t1", d.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			AnyAttempts: true, Idle: true, To: syncerror.StatusResolved, Entry: entry("resolved")}, base.Add(3*time.Minute)); err != nil {
			t.Fatalf("resolve after the attempt's lease ended: %v", err)
		}
	})

	t.Run("due retries soonest first, bounded", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := range 3 {
			c := ready(t, s, "t1", fmt.Sprintf("e-%d", i), base)
			at := base.Add(time.Duration(3-i) * time.Minute)
			if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending},
				To: syncerror.StatusRetrying, NextAt: at, Entry: entry("retry_scheduled")}, base); err != nil {
				t.Fatal(err)
			}
		}
		due, err := s.DueRetries(ctx, "t1", base.Add(time.Hour), 2)
		if err != nil || len(due) != 2 || !due[0].Retry.NextAt.Before(due[1].Retry.NextAt) || due[0].Retry.Attempts != 0 {
			t.Fatalf("due %v err=%v", claimIDs(due), err)
		}
	})
}
