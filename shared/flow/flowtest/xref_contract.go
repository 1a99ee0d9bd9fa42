package flowtest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// XRefContract is the behaviour every flow.XRefStore shares: run it against the
// in-memory fake and the DynamoDB store. newStore returns an empty store.
func XRefContract(t *testing.T, newStore func(t *testing.T) flow.XRefStore) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-2001#a/b"}
	account := flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}
	pending := func(holder string) flow.XRef {
		return flow.XRef{Source: src, Target: flow.Ref{System: account.System, Entity: account.Entity}, State: flow.XRefPending,
			Anchor: src.ID, ClaimedBy: holder, FlowID: "erp-customer-to-crm", CreatedAt: t0, UpdatedAt: t0}
	}
	ctx := context.Background()

	t.Run("claim once", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.XRef(ctx, "t1", src, account); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("XRef before any claim: %v, want ErrNotFound", err)
		}
		if _, err := s.ClaimXRef(ctx, "t1", pending("run-1")); err != nil {
			t.Fatalf("first claim: %v", err)
		}
		have, err := s.ClaimXRef(ctx, "t1", pending("run-2"))
		if !errors.Is(err, flow.ErrTaken) || !same(have, pending("run-1")) {
			t.Fatalf("second claim = %+v, %v; want ErrTaken and run-1's entry", have, err)
		}
		if _, err := s.ClaimXRef(ctx, "t2", pending("run-3")); err != nil {
			t.Fatalf("another tenant's claim: %v", err)
		}
	})

	t.Run("update only by the holder, take over", func(t *testing.T) {
		s := newStore(t)
		mustClaim(t, s, pending("run-1"))
		creating := pending("run-1")
		creating.Creating = true
		if err := s.UpdateXRef(ctx, "t1", creating, "run-2"); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("update by a run not holding the claim: %v, want ErrTaken", err)
		}
		if err := s.UpdateXRef(ctx, "t1", creating, "run-1"); err != nil {
			t.Fatal(err)
		}
		taken := creating
		taken.ClaimedBy = "run-2"
		if err := s.UpdateXRef(ctx, "t1", taken, "run-1"); err != nil {
			t.Fatalf("take over: %v", err)
		}
		if err := s.UpdateXRef(ctx, "t1", creating, "run-1"); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("the old holder's update: %v, want ErrTaken", err)
		}
		if got, err := s.XRef(ctx, "t1", src, account); err != nil || !same(got, taken) {
			t.Fatalf("XRef = %+v, %v; want %+v", got, err, taken)
		}
	})

	t.Run("link stores both directions", func(t *testing.T) {
		s := newStore(t)
		mustClaim(t, s, pending("run-1"))
		linked := pending("run-1")
		linked.State, linked.Target.ID, linked.Action, linked.LinkedBy = flow.XRefLinked, "001FAKE1001", flow.ActionCreated, "run-1"
		lost := linked
		lost.LinkedBy = "run-9"
		if err := s.LinkXRef(ctx, "t1", lost); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("link by a run not holding the claim: %v, want ErrTaken", err)
		}
		if err := s.LinkXRef(ctx, "t1", linked); err != nil {
			t.Fatal(err)
		}
		if got, err := s.XRef(ctx, "t1", src, account); err != nil || !same(got, linked) {
			t.Fatalf("XRef = %+v, %v; want %+v", got, err, linked)
		}
		back, err := s.XRef(ctx, "t1", linked.Target, src.EndpointOf())
		if err != nil || !same(back, flow.ReverseXRef(linked)) || back.Anchor != src.ID {
			t.Fatalf("reverse XRef = %+v, %v; want %+v", back, err, flow.ReverseXRef(linked))
		}
		if err := s.UpdateXRef(ctx, "t1", pending("run-1"), "run-1"); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("update of a linked entry: %v, want ErrTaken", err)
		}
		if err := s.ReleaseXRef(ctx, "t1", src, account, "run-1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.XRef(ctx, "t1", src, account); got.State != flow.XRefLinked {
			t.Fatalf("release removed a linked entry: %+v", got)
		}
		all, err := s.XRefsOf(ctx, "t1", src)
		if err != nil || len(all) != 1 || !same(all[0], linked) {
			t.Fatalf("XRefsOf = %+v, %v; want the one link", all, err)
		}
	})

	t.Run("a linked reverse entry is kept", func(t *testing.T) {
		s := newStore(t)
		first := pending("run-1")
		first.State, first.Target.ID, first.LinkedBy = flow.XRefLinked, "001X", "run-1"
		mustClaim(t, s, pending("run-1"))
		if err := s.LinkXRef(ctx, "t1", first); err != nil {
			t.Fatal(err)
		}
		other := first
		other.Source.ID, other.Anchor, other.LinkedBy, other.ClaimedBy = "C-2002", "C-2002", "run-2", "run-2"
		claim := other
		claim.State, claim.Target.ID = flow.XRefPending, ""
		mustClaim(t, s, claim)
		if err := s.LinkXRef(ctx, "t1", other); err != nil {
			t.Fatal(err)
		}
		back, _ := s.XRef(ctx, "t1", first.Target, src.EndpointOf())
		if back.Target.ID != src.ID {
			t.Fatalf("reverse of 001X = %+v, want the first link kept", back)
		}
	})

	t.Run("release only by the holder", func(t *testing.T) {
		s := newStore(t)
		mustClaim(t, s, pending("run-1"))
		if err := s.ReleaseXRef(ctx, "t1", src, account, "run-2"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.XRef(ctx, "t1", src, account); err != nil {
			t.Fatalf("another run released the claim: %v", err)
		}
		if err := s.ReleaseXRef(ctx, "t1", src, account, "run-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.XRef(ctx, "t1", src, account); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("after release: %v, want ErrNotFound", err)
		}
		if err := s.ReleaseXRef(ctx, "t1", src, account, "run-1"); err != nil {
			t.Fatalf("release of nothing: %v", err)
		}
	})

	t.Run("concurrent claims: one wins", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.ClaimXRef(ctx, "t1", pending("run-"+string(rune('a'+i))))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won++
				} else if !errors.Is(err, flow.ErrTaken) {
					t.Errorf("claim: %v", err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d claims won, want 1", won)
		}
	})

	t.Run("swap is conditional on the entry as read", func(t *testing.T) {
		s := newStore(t)
		linked := pending("")
		linked.State, linked.Target.ID, linked.Action, linked.LinkedBy = flow.XRefLinked, "001A", flow.ActionLinkedByAdmin, "admin:ann"
		if err := s.SwapXRef(ctx, "t1", nil, &linked); err != nil {
			t.Fatalf("swap in where none is: %v", err)
		}
		if err := s.SwapXRef(ctx, "t1", nil, &linked); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("swap in again = %v, want ErrTaken", err)
		}
		read, err := s.XRef(ctx, "t1", src, account)
		if err != nil || !same(read, linked) {
			t.Fatalf("read %+v, %v", read, err)
		}
		relinked := read
		relinked.Target.ID, relinked.UpdatedAt = "001B", t0.Add(time.Minute)
		stale := read
		stale.Target.ID = "001Z"
		if err := s.SwapXRef(ctx, "t1", &stale, &relinked); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("swap from a stale entry = %v, want ErrTaken", err)
		}
		if err := s.SwapXRef(ctx, "t1", &read, &relinked); err != nil {
			t.Fatalf("swap from the entry as read: %v", err)
		}
		if err := s.SwapXRef(ctx, "t1", &read, nil); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("delete of an entry that changed = %v, want ErrTaken", err)
		}
		if _, err := s.ClaimXRef(ctx, "t1", pending("run-9")); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("a run's claim over a swapped-in link = %v, want ErrTaken", err)
		}
		if err := s.SwapXRef(ctx, "t1", &relinked, nil); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := s.XRef(ctx, "t1", src, account); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("after delete: %v", err)
		}
	})
}

func mustClaim(t *testing.T, s flow.XRefStore, e flow.XRef) {
	t.Helper()
	if _, err := s.ClaimXRef(context.Background(), "t1", e); err != nil {
		t.Fatalf("claim: %v", err)
	}
}

// same compares entries as their JSON, which is what a store keeps.
func same(a, b flow.XRef) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
