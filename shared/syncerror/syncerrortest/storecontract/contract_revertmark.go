package storecontract

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// runRevertMarkContract holds the revert marks (syncerror.AppliedWrite.RevertMarks): a
// revert adds its mark to its approved row before it sends, beside any other revert's, and
// a revert that did not land takes back its own mark only. A retry tells a revert from a
// lost fix by them, so each must read back exactly as written, no revert's marking or
// clearing may remove another's (an earlier revert whose answer was lost may still land),
// the marks must survive the retry's own changes of the row, and they are kept apart from
// whether the write's reverts are marked at all (RevertsMarked, stored with the write).
func runRevertMarkContract(t *testing.T, newStore func(t *testing.T) AssistStore, now time.Time) {
	ctx := context.Background()
	entry := historyAt(now)
	// Times to the nanosecond: a mark is compared whole when it is taken back.
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
	// marks says whether the row's marks are want, oldest first, each whole.
	marks := func(t *testing.T, s AssistStore, id string, want ...syncerror.RevertMark) {
		t.Helper()
		got := get(t, s, id).Applied.RevertMarks
		if len(got) != len(want) {
			t.Fatalf("the row's marks %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i].Token != want[i].Token || !got[i].At.Equal(want[i].At) {
				t.Fatalf("the row's marks %+v, want %+v", got, want)
			}
		}
	}

	t.Run("an applied write keeps whether its reverts are marked, and no mark", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		stray := syncerror.NewRevertMark(at)
		marked := approved(t, s, "e-1", syncerror.AppliedWrite{Key: "k", At: at, RevertsMarked: true, RevertMarks: []syncerror.RevertMark{stray}})
		before := approved(t, s, "e-2", syncerror.AppliedWrite{Key: "k", At: at})
		if row := get(t, s, marked.ID); !row.Applied.RevertsMarked || row.Applied.RevertMarks != nil {
			t.Fatalf("approved with reverts marked: %+v", row.Applied)
		}
		if row := get(t, s, before.ID); row.Applied.RevertsMarked || row.Applied.RevertMarks != nil {
			t.Fatalf("approved as before marks: %+v", row.Applied)
		}
	})

	// A second revert's mark joins the first's: were it to replace it, the second revert
	// failing and taking its own back would leave no mark of the first, which may land.
	t.Run("a revert marks its approved row only, beside any earlier mark", func(t *testing.T) {
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
		// m2 before m1 and m1 twice (a resend): the marks read oldest first, each once.
		for _, m := range []syncerror.RevertMark{m2, m1, m1} {
			if err := s.MarkRevertSent(ctx, "t1", c.ID, w, m); err != nil {
				t.Fatal(err)
			}
			row := get(t, s, c.ID)
			// The marks are the row's bookkeeping: its status, history and time stay.
			if !row.Applied.RevertsMarked || row.Status != syncerror.StatusApproved || !reflect.DeepEqual(row.History, was.History) ||
				!row.UpdatedAt.Equal(was.UpdatedAt) {
				t.Fatalf("marking changed the row: %s %v %v %+v", row.Status, row.History, row.UpdatedAt, row.Applied)
			}
		}
		marks(t, s, c.ID, m1, m2)
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
		// The later revert failed: its mark goes, the earlier one's stays.
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m2); err != nil {
			t.Fatal(err)
		}
		marks(t, s, c.ID, m1)
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m2); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared twice: %v", err)
		}
		// A mark at the same time with another token is another revert's.
		if err := s.ClearRevertSent(ctx, "t1", c.ID, syncerror.RevertMark{At: m1.At, Token: m2.Token}); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared another's mark: %v", err)
		}
		if err := s.ClearRevertSent(ctx, "t1", c.ID, syncerror.RevertMark{At: m1.At.Add(time.Nanosecond), Token: m1.Token}); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared a mark of another time: %v", err)
		}
		marks(t, s, c.ID, m1)
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m1); err != nil {
			t.Fatal(err)
		}
		if row := get(t, s, c.ID); row.Applied.RevertMarks != nil || !row.Applied.RevertsMarked || row.Status != syncerror.StatusApproved {
			t.Fatalf("after the clears: %s %+v", row.Status, row.Applied)
		}
		if err := s.ClearRevertSent(ctx, "t1", c.ID, m1); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("cleared from no marks: %v", err)
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
		if held.Applied == nil || len(held.Applied.RevertMarks) != 1 || held.Applied.RevertMarks[0].Token != m.Token || !held.Applied.RevertsMarked {
			t.Fatalf("the retry took the row without its mark: %+v", held.Applied)
		}
		if err := s.MarkRevertSent(ctx, "t1", c.ID, w, syncerror.NewRevertMark(at)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a retrying row marked: %v", err)
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			Attempts: held.Retry.Attempts, To: syncerror.StatusReverted, Entry: entry("revert_found")}, now); err != nil {
			t.Fatal(err)
		}
		if row := get(t, s, c.ID); row.Status != syncerror.StatusReverted {
			t.Fatalf("reverted by the retry: %s %+v", row.Status, row.Applied)
		}
		marks(t, s, c.ID, m)
		if err := s.MarkRevertSent(ctx, "t1", c.ID, w, syncerror.NewRevertMark(at)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a reverted row marked: %v", err)
		}
	})
}
