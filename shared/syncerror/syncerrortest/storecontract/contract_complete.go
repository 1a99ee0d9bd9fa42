package storecontract

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// runCompleteApplyContract holds CompleteApply to what MarkApplied then FinishApply
// (approved) leave, in one write (issue 37 §1): the row approved, its lease gone, its
// apply error cleared, the write's key, time and prior values kept, one history entry;
// refused, changing nothing, where the token no longer holds the row.
func runCompleteApplyContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)
	t.Run("complete apply marks and approves in one write", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		lease := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
		w := syncerror.AppliedWrite{Key: "k-1", At: base.Add(time.Second),
			Prior: []syncerror.PriorValue{{Path: "shipcountry", Value: "Deutschland", Wrote: "DE"}}}
		// The same approve through the two writes, as the reference.
		two := ready(t, s, "t1", "e-two", base)
		one := ready(t, s, "t1", "e-one", base)
		for _, id := range []string{two.ID, one.ID} {
			if _, err := s.BeginApply(ctx, "t1", id, syncerror.StatusPending, lease, nil, entry("approve"), base); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.MarkApplied(ctx, "t1", two.ID, "tok-1", w, base.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", two.ID, "tok-1", syncerror.StatusApproved, "", entry("approved"), base.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompleteApply(ctx, "t1", one.ID, "tok-other", w, entry("approved"), base.Add(2*time.Second)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("complete under another token: err=%v", err)
		}
		if row, _ := s.Get(ctx, "t1", one.ID); row.Status != syncerror.StatusApplying || row.Applied != nil {
			t.Fatalf("a refused complete changed the row: %s applied %+v", row.Status, row.Applied)
		}
		if _, err := s.CompleteApply(ctx, "t1", "se_missing", "tok-1", w, entry("approved"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("complete of a missing row: err=%v", err)
		}
		written, err := s.CompleteApply(ctx, "t1", one.ID, "tok-1", w, entry("approved"), base.Add(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(ctx, "t1", one.ID)
		// The row it returns is the row as stored: the approve answers with it, unread.
		if !reflect.DeepEqual(written, got) {
			t.Fatalf("CompleteApply returned\n%+v\nthe row reads\n%+v", written, got)
		}
		want, _ := s.Get(ctx, "t1", two.ID)
		if got.Status != syncerror.StatusApproved || got.Lease != nil || got.ApplyError != "" || !reflect.DeepEqual(got.Applied, want.Applied) ||
			!reflect.DeepEqual(got.History, want.History) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("completed in one write:\n%+v\nin two:\n%+v", got, want)
		}
		if _, err := s.CompleteApply(ctx, "t1", one.ID, "tok-1", w, entry("approved"), base.Add(3*time.Second)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("complete of an approved row: err=%v", err)
		}
		p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusApproved, Limit: 10})
		if err != nil || len(p.Claims) != 2 {
			t.Fatalf("approved listing %v err=%v", claimIDs(p.Claims), err)
		}
	})
}
