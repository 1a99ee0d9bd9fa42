package storecontract

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runFoldContract covers the fold's writes: create, occurrence, duplicate, closed, and
// the signature's generation.
func runFoldContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, base time.Time) {
	ctx := context.Background()
	post := func(errorID string, gen int, at time.Time) (syncerror.Claim, string) {
		rec := syncerrortest.SampleRecord("t1", errorID)
		c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "msg", at)
		sig := syncerror.Signature(rec)
		c.ID = syncerror.SignatureRowID("t1", sig, gen)
		c.Retry = syncerror.RetryState{Signature: sig, Occurrences: 1, FirstSeen: at, LastSeen: at,
			ErrorKeys: []string{syncerror.ErrorKey(errorID)}}
		return c, syncerror.ErrorKey(errorID)
	}

	t.Run("fold: create, occurrences, duplicate, closed", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c, k := post("e-1", 0, base)
		if res, row, err := s.Fold(ctx, c, k); err != nil || res != syncerror.FoldCreated || row.ID != c.ID {
			t.Fatalf("create: %v %s err=%v", res, row.ID, err)
		}
		later := base.Add(time.Minute)
		d, k2 := post("e-2", 0, later)
		res, row, err := s.Fold(ctx, d, k2)
		if err != nil || res != syncerror.FoldOccurrence || row.Retry.Occurrences != 2 || !row.Retry.LastSeen.Equal(later) ||
			!row.Retry.FirstSeen.Equal(base) || row.Record.ErrorID != "e-1" || row.Status != syncerror.StatusPending {
			t.Fatalf("occurrence: %v %+v err=%v", res, row.Retry, err)
		}
		if res, row, err := s.Fold(ctx, d, k2); err != nil || res != syncerror.FoldDuplicate || row.Retry.Occurrences != 2 {
			t.Fatalf("redelivery: %v %d err=%v", res, row.Retry.Occurrences, err)
		}
		got, _ := s.Get(ctx, "t1", c.ID)
		if got.Retry.Occurrences != 2 || len(got.Retry.ErrorKeys) != 2 || !got.Retry.LastSeen.Equal(later) {
			t.Fatalf("stored %+v", got.Retry)
		}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, syncerror.HistoryEntry{At: base, Actor: "a", Action: "rejected"}, base); err != nil {
			t.Fatal(err)
		}
		e, k3 := post("e-3", 0, later)
		if res, row, err := s.Fold(ctx, e, k3); err != nil || res != syncerror.FoldClosed || row.Retry.Occurrences != 2 {
			t.Fatalf("closed: %v %+v err=%v", res, row.Retry, err)
		}
	})

	// A reverted row (an approved fix written back out again) is closed like the others:
	// the signature's next post opens a new row, it does not reopen that one.
	t.Run("fold: a reverted row is closed", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		rv, ok := s.(interface {
			MarkReverted(ctx context.Context, tenantID, id string, entry syncerror.HistoryEntry, now time.Time) error
		})
		if !ok {
			t.Skip("the store does not revert")
		}
		c, k := post("r-1", 0, base)
		if res, _, err := s.Fold(ctx, c, k); err != nil || res != syncerror.FoldCreated {
			t.Fatalf("create: %v err=%v", res, err)
		}
		entry := syncerror.HistoryEntry{At: base, Actor: "a", Action: "approved"}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusApproved, entry, base); err != nil {
			t.Fatal(err)
		}
		if err := rv.MarkReverted(ctx, "t1", c.ID, syncerror.HistoryEntry{At: base, Actor: "a", Action: "reverted"}, base); err != nil {
			t.Fatal(err)
		}
		d, k2 := post("r-2", 0, base.Add(time.Minute))
		if res, row, err := s.Fold(ctx, d, k2); err != nil || res != syncerror.FoldClosed || row.Retry.Occurrences != 1 {
			t.Fatalf("after revert: %v %+v err=%v, want FoldClosed", res, row.Retry, err)
		}
	})

	t.Run("fold: concurrent posts lose no occurrence", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const n = 10
		first, _ := post("e-0", 0, base)
		created := winners(t, n, func(i int) (bool, error) {
			c, k := post(fmt.Sprintf("e-%d", i), 0, base.Add(time.Duration(i)*time.Second))
			res, _, err := s.Fold(ctx, c, k)
			return res == syncerror.FoldCreated, err
		})
		got, err := s.Get(ctx, "t1", first.ID)
		if err != nil || created != 1 || got.Retry.Occurrences != n || len(got.Retry.ErrorKeys) != n {
			t.Fatalf("%d created, row %+v err=%v", created, got.Retry, err)
		}
		// The same errorId posted ten times at once counts once.
		dup, k := post("e-dup", 0, base)
		winners(t, n, func(int) (bool, error) {
			_, _, err := s.Fold(ctx, dup, k)
			return false, err
		})
		if got, _ := s.Get(ctx, "t1", first.ID); got.Retry.Occurrences != n+1 {
			t.Fatalf("after concurrent redeliveries: %d occurrences", got.Retry.Occurrences)
		}
	})

	// An errorId keeps the signature it was first recorded with, per tenant; of concurrent
	// first posts exactly one records it.
	t.Run("error keys keep their first signature", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if prior, ok, err := s.ClaimErrorKey(ctx, "t1", "k1", "sig-a"); err != nil || !ok || prior.Signature != "sig-a" {
			t.Fatalf("fresh %+v claimed=%v err=%v", prior, ok, err)
		}
		if prior, ok, err := s.ClaimErrorKey(ctx, "t1", "k1", "sig-b"); err != nil || ok || prior.Signature != "sig-a" || prior.RowID != "" {
			t.Fatalf("again %+v claimed=%v err=%v, want the first signature", prior, ok, err)
		}
		if _, ok, _ := s.ClaimErrorKey(ctx, "t2", "k1", "sig-b"); !ok {
			t.Fatal("another tenant's error key was taken")
		}
		if n := winners(t, 5, func(i int) (bool, error) {
			_, ok, err := s.ClaimErrorKey(ctx, "t1", "k-race", fmt.Sprintf("sig-%d", i))
			return ok, err
		}); n != 1 {
			t.Fatalf("%d concurrent first posts recorded the key, want 1", n)
		}
	})

	// A row keeps MaxErrorKeys keys; past them an occurrence is counted without its key,
	// once per key in its slot (the same key again is a duplicate), and the errorId's
	// record keeps the row it was counted on.
	t.Run("fold past the key bound; an error key's mark", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		first, key := post("B-0", 0, base)
		if res, _, err := s.Fold(ctx, first, key); err != nil || res != syncerror.FoldCreated {
			t.Fatal(res, err)
		}
		n := syncerror.MaxErrorKeys + 3
		for i := 1; i < n; i++ {
			c, k := post(fmt.Sprint("B-", i), 0, base)
			if res, _, err := s.Fold(ctx, c, k); err != nil || res != syncerror.FoldOccurrence {
				t.Fatalf("post %d: %v %v", i, res, err)
			}
		}
		again, k := post(fmt.Sprint("B-", n-1), 0, base)
		if res, row, err := s.Fold(ctx, again, k); err != nil || res != syncerror.FoldDuplicate || row.Retry.Occurrences != n ||
			len(row.Retry.ErrorKeys) != syncerror.MaxErrorKeys {
			t.Fatalf("the last key again: %v, %d occurrences, %d keys, %v; want a duplicate of %d with %d keys", res,
				row.Retry.Occurrences, len(row.Retry.ErrorKeys), err, n, syncerror.MaxErrorKeys)
		}
		if err := s.MarkErrorKey(ctx, "t1", "k-none", first.ID, first.ClaimedAt); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("a record never claimed was marked: %v", err)
		}
		if _, ok, err := s.ClaimErrorKey(ctx, "t1", k, "sig-a"); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if err := s.MarkErrorKey(ctx, "t1", k, first.ID, first.ClaimedAt); err != nil {
			t.Fatal(err)
		}
		if prior, ok, err := s.ClaimErrorKey(ctx, "t1", k, "sig-b"); err != nil || ok || prior.Signature != "sig-a" || prior.RowID != first.ID ||
			!prior.RowClaimedAt.Equal(first.ClaimedAt) {
			t.Fatalf("the record read back: %+v %v %v; want sig-a, counted on %s claimed at %s", prior, ok, err, first.ID, first.ClaimedAt)
		}
	})

	// A webhook-id keeps the message it was first recorded with, per tenant, until it
	// expires; of concurrent first uses exactly one records it.
	t.Run("webhook-ids keep their first message until they expire", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		d := syncerror.Arrival{WebhookID: "msg_1", Message: "k1"}
		if first, rec, err := s.RecordWebhookID(ctx, "t1", d, base); err != nil || !rec || first != "k1" {
			t.Fatalf("fresh %q recorded=%v err=%v", first, rec, err)
		}
		other := syncerror.Arrival{WebhookID: "msg_1", Message: "k2"}
		if first, rec, err := s.RecordWebhookID(ctx, "t1", other, base.Add(time.Hour)); err != nil || rec || first != "k1" {
			t.Fatalf("reused id: %q recorded=%v err=%v, want the first message", first, rec, err)
		}
		if _, rec, _ := s.RecordWebhookID(ctx, "t2", other, base); !rec {
			t.Fatal("another tenant's id was taken")
		}
		late := base.Add(syncerror.WebhookIDTTL + time.Second)
		if first, rec, err := s.RecordWebhookID(ctx, "t1", other, late); err != nil || !rec || first != "k2" {
			t.Fatalf("after its TTL: %q recorded=%v err=%v, want the id recorded again", first, rec, err)
		}
		if n := winners(t, 5, func(i int) (bool, error) {
			_, rec, err := s.RecordWebhookID(ctx, "t1", syncerror.Arrival{WebhookID: "msg_race", Message: fmt.Sprintf("k%d", i)}, base)
			return rec, err
		}); n != 1 {
			t.Fatalf("%d concurrent first uses recorded the id, want 1", n)
		}
	})

	t.Run("signature generation advances once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if st, err := s.SignatureState(ctx, "t1", "sig-a"); err != nil || st.Generation != 0 || len(st.ClosedKeys) != 0 {
			t.Fatalf("fresh %+v err=%v", st, err)
		}
		n := winners(t, 5, func(int) (bool, error) {
			return won(s.AdvanceSignature(ctx, "t1", "sig-a", 0, []string{"k1", "k2"}))
		})
		st, err := s.SignatureState(ctx, "t1", "sig-a")
		if n != 1 || err != nil || st.Generation != 1 || len(st.ClosedKeys) != 2 {
			t.Fatalf("%d advanced; %+v err=%v", n, st, err)
		}
		if err := s.AdvanceSignature(ctx, "t1", "sig-a", 1, nil); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.SignatureState(ctx, "t1", "sig-a"); st.Generation != 2 || len(st.ClosedKeys) != 0 {
			t.Fatalf("second advance %+v", st)
		}
		if st, _ := s.SignatureState(ctx, "t2", "sig-a"); st.Generation != 0 {
			t.Fatalf("other tenant's signature %+v", st)
		}
	})
}
