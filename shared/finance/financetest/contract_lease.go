package financetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
)

// runLeaseSpellCases are the contract's cases of a lease's Since: when the applying spell
// it belongs to began, which the sweep looks for the ERP update from.
func runLeaseSpellCases(t *testing.T, newStore func(t *testing.T) finance.Store) {
	ctx := context.Background()
	base := Base

	t.Run("a lease keeps when its applying spell began, across a takeover", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		began := base.Add(time.Second)
		l1 := finance.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute), Holder: "alice", Since: began}
		if got, err := s.BeginAccept(ctx, "t1", a.ID, l1, began); err != nil || got.Lease == nil || *got.Lease != l1 {
			t.Fatalf("begin: %+v err=%v", got.Lease, err)
		}
		at := base.Add(2 * time.Minute)
		l2 := finance.Lease{Token: "tok-2", ExpiresAt: at.Add(time.Minute), Holder: "bob", Since: began}
		if got, err := s.TakeOver(ctx, "t1", a.ID, "tok-1", l2, at); err != nil || got.Lease == nil || *got.Lease != l2 || !got.UpdatedAt.Equal(at) {
			t.Fatalf("takeover: %+v err=%v", got, err)
		}
		exp, err := s.ExpiredLeases(ctx, "t1", at.Add(time.Hour), 10)
		if err != nil || len(exp) != 1 || exp[0].Lease == nil || *exp[0].Lease != l2 {
			t.Fatalf("the sweep must see when the spell began: %+v err=%v", exp, err)
		}
		if err := s.Revert(ctx, "t1", a.ID, "tok-2", "lease expired", at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		// A lease without Since (taken before it was kept) reads back without one, and a
		// spell ended by a revert leaves none behind.
		l3 := finance.Lease{Token: "tok-3", ExpiresAt: at.Add(2 * time.Hour), Holder: "carol"}
		if got, err := s.BeginAccept(ctx, "t1", a.ID, l3, at.Add(time.Hour)); err != nil || got.Lease == nil || *got.Lease != l3 {
			t.Fatalf("begin without since: %+v err=%v", got.Lease, err)
		}
		if got, err := s.Get(ctx, "t1", a.ID); err != nil || got.Lease == nil || !got.Lease.Since.IsZero() {
			t.Fatalf("stored lease %+v err=%v", got.Lease, err)
		}
		done, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-3", "carol", at.Add(time.Hour))
		if err != nil || done.Lease != nil {
			t.Fatalf("completed %+v err=%v", done, err)
		}
		if _, err := s.TakeOver(ctx, "t1", a.ID, "tok-3", l2, at.Add(3*time.Hour)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("an accepted row taken over: err=%v", err)
		}
	})
}
