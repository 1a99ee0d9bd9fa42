package storecontract

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// runRevertMarkContract holds the revert's mark (syncerror.AppliedWrite.RevertSent): a
// revert marks its approved row before it sends, and a revert that did not land takes back
// its own mark only. A retry tells a revert from a lost fix by it, so it must read back
// exactly as written, survive the retry's own changes of the row, and be kept apart from
// whether the write's reverts are marked at all (RevertsMarked, stored with the write).
func runRevertMarkContract(t *testing.T, newStore func(t *testing.T) AssistStore, now time.Time) {
	ctx := context.Background()
	entry := historyAt(now)
	// Times to the nanosecond: the mark is compared whole when it is taken back.
	at := now.Add(123456789 * time.Nanosecond)

	// approved claims a row and approves it with w, marked applied.
	approved := func(t *testing.T, s AssistStore, errorID string, w syncerror.AppliedWrite) syncerror.Claim {
		t.Helper()
		c := ready(t, s, "t1", errorID, now)
		l := syncerror.Lease{Token: "tok-1", ExpiresAt: now.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompleteApply(ctx, "t1", c.ID, "tok-1", w, entry("approved"), now); err != nil {
			t.Fatal(err)
		}
		return c
	}
	get := func(t *testing.T, s AssistStore, id string) syncerror.Claim {
		t.Helper()
		row, err := s.Get(ctx, "t1", id)
		if err != nil || row.Applied == nil {
			t.Fatalf("row %s: applied %+v, %v", id, row.Applied, err)
		}
		return row
	}

	t.Run("an applied write keeps whether its reverts are marked, and no mark", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		stray := syncerror.NewRevertMark(at)
		marked := approved(t, s, "e-1", syncerror.AppliedWrite{Key: "k", At: at, RevertsMarked: true, RevertSent: &stray})
		before := approved(t, s, "e-2", syncerror.AppliedWrite{Key: "k", At: at})
		if row := get(t, s, marked.ID); !row.Applied.RevertsMarked || row.Applied.RevertSent != nil {
			t.Fatalf("approved with reverts marked: %+v", row.Applied)
		}
		if row := get(t, s, before.ID); row.Applied.RevertsMarked || row.Applied.RevertSent != nil {
			t.Fatalf("approved as before marks: %+v", row.Applied)
		}
	})

	t.Run("a revert marks its approved row only, over an earlier mark", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		w := syncerror.AppliedWrite{Key: "k", At: at, RevertsMarked: true}
		m1, m2 := syncerror.NewRevertMark(at), syncerror.NewRevertMark(at.Add(time.Second))
		pending := ready(t, s, "t1", "e-0", now)
		if err := s.MarkRevertSent(ctx, "t1", pending.ID, w, m1); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a pending row marked: %v", err)
		}
		if err := s.MarkRevertSent(ctx, "t1", "se_aaaaaaaaaaaaaaaaaaaaaaaaaa", w, m1); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("no row: %v", err)
		}
		c := approved(t, s, "e-1", w)
		was := get(t, s, c.ID)
		for _, other := range []syncerror.AppliedWrite{{Key: "k2", At: at}, {Key: "k", At: at.Add(time.Nanosecond)}} {
			if err := s.MarkRevertSent(ctx, "t1", c.ID, other, m1); !errors.Is(err, syncerror.ErrStateChanged) {
				t.Fatalf("marked for another write %+v: %v", other, err)
			}
		}
		for _, m := range []syncerror.RevertMark{m1, m2} {
			if err := s.MarkRevertSent(ctx, "t1", c.ID, w, m); err != nil {
				t.Fatal(err)
			}
			row := get(t, s, c.ID)
			if got := row.Applied.RevertSent; got == nil || got.Token != m.Token || !got.At.Equal(m.At) || !row.Applied.RevertsMarked {
				t.Fatalf("marked %+v, read back %+v", m, row.Applied)
			}
			// The mark is the row's bookkeeping: its status, history and time stay.
			if row.Status != syncerror.StatusApproved || !reflect.DeepEqual(row.History, was.History) || !row.UpdatedAt.Equal(was.UpdatedAt) {
				t.Fatalf("marking changed the row: %s %v %v", row.Status, row.History, row.UpdatedAt)
			}
		}
	})

	t.Run("a revert takes back its own mark only", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		w := syncerror.AppliedWrite{Key: "k", At: at, RevertsMarked: true}
		m1, m2 := syncerror.NewRevertMark(at), syncerror.NewRevertMark(at)
		c := approved(t, s, "e-1", w)
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m1); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared a mark never set: %v", err)
		}
		for _, m := range []syncerror.RevertMark{m1, m2} {
			if err := s.MarkRevertSent(ctx, "t1", c.ID, w, m); err != nil {
				t.Fatal(err)
			}
		}
		// m1's revert failed after m2's was marked: m2's mark stays.
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m1); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("another revert's mark cleared: %v", err)
		}
		if got := get(t, s, c.ID).Applied.RevertSent; got == nil || got.Token != m2.Token {
			t.Fatalf("mark after another's clear %+v", got)
		}
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m2); err != nil {
			t.Fatal(err)
		}
		if row := get(t, s, c.ID); row.Applied.RevertSent != nil || !row.Applied.RevertsMarked || row.Status != syncerror.StatusApproved {
			t.Fatalf("after the clear: %s %+v", row.Status, row.Applied)
		}
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m2); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared twice: %v", err)
		}
		if err := s.ClearRevertSent(ctx, "t1", "se_aaaaaaaaaaaaaaaaaaaaaaaaaa", m2); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("no row: %v", err)
		}
	})

	// A retry that finds the fix reverted ends the row reverted from the row it took (the
	// mark on it); the mark stays with the row, and a reverted or retrying row is not marked.
	t.Run("a retry of a marked row reads the mark and may end it reverted", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		w := syncerror.AppliedWrite{Key: "k", At: at, RevertsMarked: true}
		m := syncerror.NewRevertMark(at)
		c := approved(t, s, "e-1", w)
		if err := s.MarkRevertSent(ctx, "t1", c.ID, w, m); err != nil {
			t.Fatal(err)
		}
		held, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusApproved},
			To: syncerror.StatusRetrying, Begin: true, NextAt: now.Add(time.Minute), Entry: entry("retry")}, now)
		if err != nil {
			t.Fatal(err)
		}
		if held.Applied == nil || held.Applied.RevertSent == nil || held.Applied.RevertSent.Token != m.Token || !held.Applied.RevertsMarked {
			t.Fatalf("the retry took the row without its mark: %+v", held.Applied)
		}
		if err := s.MarkRevertSent(ctx, "t1", c.ID, w, syncerror.NewRevertMark(at)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a retrying row marked: %v", err)
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			Attempts: held.Retry.Attempts, To: syncerror.StatusReverted, Entry: entry("revert_found")}, now); err != nil {
			t.Fatal(err)
		}
		row := get(t, s, c.ID)
		if row.Status != syncerror.StatusReverted || row.Applied.RevertSent == nil || row.Applied.RevertSent.Token != m.Token {
			t.Fatalf("reverted by the retry: %s %+v", row.Status, row.Applied)
		}
		if err := s.MarkRevertSent(ctx, "t1", c.ID, w, syncerror.NewRevertMark(at)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a reverted row marked: %v", err)
		}
	})
}
