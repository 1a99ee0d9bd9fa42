package financetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
)

// Base is the time the contract's rows are created at.
var Base = time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

// SampleApproval returns a complete pending approval of tenantID created at at.
func SampleApproval(tenantID, id string, at time.Time) finance.Approval {
	at = at.UTC()
	return finance.Approval{
		TenantID: tenantID, ID: id, ERPID: "VB-" + id, Entity: "vendorBill", Amount: "12480.00", Currency: "EUR",
		Vendor: "Nordwind Logistik GmbH", Description: "Q4 freight, Hamburg hub", RequestedBy: "m.keller",
		Fields: json.RawMessage(`{"approvalStatus":"approved","paymentHold":false}`), Status: finance.StatusPending,
		CreatedAt: at, UpdatedAt: at,
	}
}

// RunStoreContract runs the cases every finance.Store must pass. newStore returns an
// empty store for each case, its own: the cases run side by side (t.Parallel).
func RunStoreContract(t *testing.T, newStore func(t *testing.T) finance.Store) {
	ctx := context.Background()
	base := Base
	lease := func(token string, exp time.Time) finance.Lease {
		return finance.Lease{Token: token, ExpiresAt: exp.UTC(), Holder: "holder-" + token}
	}

	t.Run("create once then duplicate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		created, err := s.Create(ctx, a)
		if err != nil || !created {
			t.Fatalf("first create: created=%v err=%v", created, err)
		}
		again := a
		again.Amount = "99.00"
		created, err = s.Create(ctx, again)
		if err != nil || created {
			t.Fatalf("second create: created=%v err=%v, want false, nil", created, err)
		}
		got, err := s.Get(ctx, "t1", a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, a) {
			t.Fatalf("stored row differs:\n got %+v\nwant %+v", got, a)
		}
	})

	t.Run("minimal row round-trips", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-min", base)
		a.ERPID, a.Description, a.RequestedBy = "", "", ""
		a.Fields = finance.DefaultFields
		mustCreate(t, s, a)
		got, err := s.Get(ctx, "t1", a.ID)
		if err != nil || !reflect.DeepEqual(got, a) {
			t.Fatalf("got %+v err=%v, want %+v", got, err, a)
		}
	})

	t.Run("get is tenant scoped", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		if _, err := s.Get(ctx, "t2", a.ID); !errors.Is(err, finance.ErrNotFound) {
			t.Fatalf("other tenant: err=%v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "t1", "FA-missing"); !errors.Is(err, finance.ErrNotFound) {
			t.Fatalf("unknown id: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("concurrent creates make one row", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-race", base)
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				created, err := s.Create(ctx, a)
				if err != nil {
					t.Error(err)
				}
				if created {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d creates reported created, want 1", won.Load())
		}
	})

	t.Run("list by status newest first, paged", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		var want []string
		for i := range 5 {
			a := SampleApproval("t1", fmt.Sprintf("FA-%d", i), base.Add(time.Duration(i)*time.Minute))
			mustCreate(t, s, a)
			want = append([]string{a.ID}, want...)
		}
		// Two rows created in the same instant must not be lost at a page boundary.
		twin := SampleApproval("t1", "FA-2b", base.Add(2*time.Minute))
		mustCreate(t, s, twin)
		want = slices.Insert(want, 2, twin.ID)
		mustCreate(t, s, SampleApproval("t2", "FA-9", base.Add(time.Hour)))
		rej := SampleApproval("t1", "FA-rej", base.Add(time.Hour))
		mustCreate(t, s, rej)
		if _, err := s.Reject(ctx, "t1", rej.ID, "bob", "duplicate bill", base); err != nil {
			t.Fatal(err)
		}
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			p, err := s.List(ctx, "t1", finance.StatusPending, 2, cursor)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Approvals) > 2 || pages > 5 {
				t.Fatalf("page %d: %d rows", pages, len(p.Approvals))
			}
			got = append(got, ids(p.Approvals)...)
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pending pages = %v, want %v", got, want)
		}
		p, err := s.List(ctx, "t1", finance.StatusRejected, 10, "")
		if err != nil || len(p.Approvals) != 1 || p.Approvals[0].ID != rej.ID || p.NextCursor != "" {
			t.Fatalf("rejected = %v err=%v", ids(p.Approvals), err)
		}
		p, err = s.List(ctx, "t1", finance.StatusPending, 6, "")
		if err != nil || len(p.Approvals) != 6 || p.NextCursor != "" {
			t.Fatalf("exact page: %d rows, cursor %q, err=%v; want 6 and no cursor", len(p.Approvals), p.NextCursor, err)
		}
		for _, c := range []string{"%%bogus", "bm90LWEtY3Vyc29y", finance.EncodeCursor("yesterday#FA-1")} {
			if _, err := s.List(ctx, "t1", finance.StatusPending, 2, c); !errors.Is(err, finance.ErrBadCursor) {
				t.Errorf("cursor %q: err=%v, want ErrBadCursor", c, err)
			}
		}
	})

	t.Run("accept lease: begin, hold, take over, complete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		l1 := lease("tok-1", base.Add(time.Minute))
		got, err := s.BeginAccept(ctx, "t1", a.ID, l1, base.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != finance.StatusApplying || got.Lease == nil || *got.Lease != l1 || !got.UpdatedAt.Equal(base.Add(time.Second)) ||
			got.ERPID != a.ERPID || got.Amount != a.Amount || string(got.Fields) != string(a.Fields) {
			t.Fatalf("after begin: %+v", got)
		}
		if p, _ := s.List(ctx, "t1", finance.StatusApplying, 10, ""); len(p.Approvals) != 1 {
			t.Fatalf("applying listing: %v", ids(p.Approvals))
		}
		if p, _ := s.List(ctx, "t1", finance.StatusPending, 10, ""); len(p.Approvals) != 0 {
			t.Fatalf("pending listing still shows the applying row: %v", ids(p.Approvals))
		}
		l2 := lease("tok-2", base.Add(3*time.Minute))
		if _, err := s.BeginAccept(ctx, "t1", a.ID, l2, base.Add(30*time.Second)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("lease taken while held: err=%v", err)
		}
		for _, tc := range []struct {
			tenant, id string
		}{{"t1", "FA-missing"}, {"t2", a.ID}} {
			if _, err := s.BeginAccept(ctx, tc.tenant, tc.id, l2, base); !errors.Is(err, finance.ErrNotFound) {
				t.Fatalf("begin %s/%s: err=%v, want ErrNotFound", tc.tenant, tc.id, err)
			}
		}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, l2, base.Add(2*time.Minute)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("begin took an expired lease (only TakeOver may): err=%v", err)
		}
		got, err = s.TakeOver(ctx, "t1", a.ID, "tok-1", l2, base.Add(2*time.Minute))
		if err != nil || got.Lease == nil || got.Lease.Token != "tok-2" {
			t.Fatalf("takeover of an expired lease: %+v err=%v", got, err)
		}
		if _, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-1", "alice", base); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("complete with the overtaken token: err=%v", err)
		}
		if err := s.Revert(ctx, "t1", a.ID, "tok-1", "x", base); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("revert with the overtaken token: err=%v", err)
		}
		decided := base.Add(2*time.Minute + time.Second)
		done, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-2", "bob", decided)
		if err != nil {
			t.Fatal(err)
		}
		want := a
		want.Status, want.DecidedBy, want.DecidedAt, want.UpdatedAt = finance.StatusAccepted, "bob", decided, decided
		if !reflect.DeepEqual(done, want) {
			t.Fatalf("accepted row:\n got %+v\nwant %+v", done, want)
		}
		if got, _ := s.Get(ctx, "t1", a.ID); !reflect.DeepEqual(got, want) {
			t.Fatalf("stored accepted row:\n got %+v\nwant %+v", got, want)
		}
		if _, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-2", "bob", decided); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("completed twice: err=%v", err)
		}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-3", base.Add(time.Hour)), base.Add(time.Hour)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("accepted row leased again: err=%v", err)
		}
		if _, err := s.Reject(ctx, "t1", a.ID, "carol", "", base); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("accepted row rejected: err=%v", err)
		}
	})

	t.Run("take over only the expired lease named, once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		if _, err := s.TakeOver(ctx, "t1", a.ID, "tok-1", lease("tok-2", base.Add(time.Hour)), base); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("a pending row taken over: err=%v", err)
		}
		if _, err := s.TakeOver(ctx, "t1", "FA-missing", "tok-1", lease("tok-2", base.Add(time.Hour)), base); !errors.Is(err, finance.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-1", base.Add(time.Minute)), base); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, token string
			at          time.Time
		}{{"before expiry", "tok-1", base.Add(30 * time.Second)}, {"at expiry", "tok-1", base.Add(time.Minute)},
			{"another token", "tok-other", base.Add(2 * time.Minute)}} {
			if _, err := s.TakeOver(ctx, "t1", a.ID, tc.token, lease("tok-2", base.Add(time.Hour)), tc.at); !errors.Is(err, finance.ErrStateChanged) {
				t.Fatalf("%s: err=%v, want ErrStateChanged", tc.name, err)
			}
		}
		at := base.Add(2 * time.Minute)
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				if _, err := s.TakeOver(ctx, "t1", a.ID, "tok-1", lease(fmt.Sprintf("tok-%d", i+2), at.Add(time.Minute)), at); err == nil {
					won.Add(1)
				} else if !errors.Is(err, finance.ErrStateChanged) {
					t.Errorf("takeover %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		got, _ := s.Get(ctx, "t1", a.ID)
		if won.Load() != 1 || got.Status != finance.StatusApplying || got.Lease == nil || got.Lease.Token == "tok-1" ||
			!got.Lease.ExpiresAt.Equal(at.Add(time.Minute)) || !got.UpdatedAt.Equal(at) {
			t.Fatalf("%d takeovers won; row %+v", won.Load(), got)
		}
	})

	t.Run("revert returns to pending with the error", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-1", base.Add(time.Minute)), base); err != nil {
			t.Fatal(err)
		}
		if err := s.Revert(ctx, "t1", a.ID, "tok-1", "the host ERP did not accept the update", base.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(ctx, "t1", a.ID)
		if got.Status != finance.StatusPending || got.Lease != nil || got.LastError != "the host ERP did not accept the update" ||
			!got.UpdatedAt.Equal(base.Add(time.Second)) || got.DecidedBy != "" {
			t.Fatalf("after revert: %+v", got)
		}
		if err := s.Revert(ctx, "t1", a.ID, "tok-1", "again", base); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("reverted twice: err=%v", err)
		}
		if err := s.Revert(ctx, "t1", "FA-missing", "tok-1", "x", base); !errors.Is(err, finance.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-2", base.Add(time.Hour)), base.Add(time.Minute)); err != nil {
			t.Fatalf("begin after revert: %v", err)
		}
		done, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-2", "alice", base.Add(2*time.Minute))
		if err != nil || done.LastError != "" {
			t.Fatalf("accept after a failure keeps the old error: %+v err=%v", done, err)
		}
	})

	t.Run("a row marked applied only ends accepted", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-1", base.Add(time.Minute)), base); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Second)
		if err := s.MarkApplied(ctx, "t1", a.ID, "tok-other", "alice", at); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("mark with another token: err=%v", err)
		}
		if err := s.MarkApplied(ctx, "t1", a.ID, "tok-1", "alice", at); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, "t1", a.ID); got.AppliedBy != "alice" || !got.AppliedAt.Equal(at) || got.Status != finance.StatusApplying {
			t.Fatalf("marked row %+v", got)
		}
		if err := s.Revert(ctx, "t1", a.ID, "tok-1", "late failure", at); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("an applied row reverted to pending: err=%v", err)
		}
		if _, err := s.TakeOver(ctx, "t1", a.ID, "tok-1", lease("tok-2", base.Add(time.Hour)), base.Add(2*time.Minute)); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("an applied row taken over: err=%v", err)
		}
		if exp, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute), 10); err != nil || len(exp) != 1 || exp[0].AppliedBy != "alice" {
			t.Fatalf("the sweep must see the marker: %+v err=%v", exp, err)
		}
		done, err := s.CompleteAccept(ctx, "t1", a.ID, "tok-1", "alice", base.Add(3*time.Minute))
		if err != nil || done.Status != finance.StatusAccepted || done.AppliedBy != "alice" {
			t.Fatalf("completed %+v err=%v", done, err)
		}
	})

	t.Run("concurrent begins take one lease", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				_, err := s.BeginAccept(ctx, "t1", a.ID, lease(fmt.Sprintf("tok-%d", i), base.Add(time.Minute)), base)
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, finance.ErrStateChanged):
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d begins took the lease, want 1", won.Load())
		}
	})

	t.Run("concurrent reverts of one lease revert once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		mustCreate(t, s, a)
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok-1", base.Add(time.Minute)), base); err != nil {
			t.Fatal(err)
		}
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				err := s.Revert(ctx, "t1", a.ID, "tok-1", "lease expired", base.Add(time.Hour))
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, finance.ErrStateChanged):
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d reverts won, want 1", won.Load())
		}
	})

	t.Run("reject from pending only", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", "FA-1", base)
		b := SampleApproval("t1", "FA-2", base)
		mustCreate(t, s, a)
		mustCreate(t, s, b)
		at := base.Add(time.Minute)
		done, err := s.Reject(ctx, "t1", a.ID, "bob", "duplicate of FA-0", at)
		if err != nil {
			t.Fatal(err)
		}
		want := a
		want.Status, want.DecidedBy, want.DecidedAt, want.UpdatedAt, want.Note = finance.StatusRejected, "bob", at, at, "duplicate of FA-0"
		if !reflect.DeepEqual(done, want) {
			t.Fatalf("rejected row:\n got %+v\nwant %+v", done, want)
		}
		if got, _ := s.Get(ctx, "t1", a.ID); !reflect.DeepEqual(got, want) {
			t.Fatalf("stored rejected row:\n got %+v\nwant %+v", got, want)
		}
		if _, err := s.Reject(ctx, "t1", a.ID, "bob", "", at); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("rejected twice: err=%v", err)
		}
		if _, err := s.BeginAccept(ctx, "t1", a.ID, lease("tok", at.Add(time.Minute)), at); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("rejected row leased: err=%v", err)
		}
		if _, err := s.BeginAccept(ctx, "t1", b.ID, lease("tok", at.Add(time.Minute)), at); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reject(ctx, "t1", b.ID, "bob", "", at); !errors.Is(err, finance.ErrStateChanged) {
			t.Fatalf("applying row rejected: err=%v", err)
		}
		if _, err := s.Reject(ctx, "t2", b.ID, "bob", "", at); !errors.Is(err, finance.ErrNotFound) {
			t.Fatalf("other tenant: err=%v", err)
		}
		plain := SampleApproval("t1", "FA-3", base)
		mustCreate(t, s, plain)
		if done, err := s.Reject(ctx, "t1", plain.ID, "bob", "", at); err != nil || done.Note != "" {
			t.Fatalf("reject without a note: %+v err=%v", done, err)
		}
	})

	runLeaseSpellCases(t, newStore)

	t.Run("expired leases of a tenant", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := range 4 {
			a := SampleApproval("t1", fmt.Sprintf("FA-%d", i), base)
			mustCreate(t, s, a)
			if i < 3 {
				if _, err := s.BeginAccept(ctx, "t1", a.ID, lease(fmt.Sprintf("tok-%d", i), base.Add(time.Duration(i+1)*time.Minute)), base); err != nil {
					t.Fatal(err)
				}
			}
		}
		other := SampleApproval("t2", "FA-0", base)
		mustCreate(t, s, other)
		if _, err := s.BeginAccept(ctx, "t2", other.ID, lease("tok-x", base.Add(time.Minute)), base); err != nil {
			t.Fatal(err)
		}
		got, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute+time.Second), 10)
		if err != nil {
			t.Fatal(err)
		}
		if g := sorted(ids(got)); !reflect.DeepEqual(g, []string{"FA-0", "FA-1"}) {
			t.Fatalf("expired = %v, want FA-0 and FA-1", g)
		}
		for _, a := range got {
			if a.Lease == nil || a.Lease.Token == "" {
				t.Fatalf("expired row without its lease: %+v", a)
			}
		}
		if got, _ := s.ExpiredLeases(ctx, "t1", base.Add(time.Hour), 2); len(got) != 2 {
			t.Fatalf("limit 2: %v", ids(got))
		}
		if err := s.Revert(ctx, "t1", "FA-0", "tok-0", "lease expired", base.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.ExpiredLeases(ctx, "t1", base.Add(time.Hour), 10); !reflect.DeepEqual(sorted(ids(got)), []string{"FA-1", "FA-2"}) {
			t.Fatalf("after a revert: %v", ids(got))
		}
		if got, _ := s.ExpiredLeases(ctx, "t1", base, 10); len(got) != 0 {
			t.Fatalf("nothing has expired yet: %v", ids(got))
		}
	})
}

func mustCreate(t *testing.T, s finance.Store, a finance.Approval) {
	t.Helper()
	if created, err := s.Create(context.Background(), a); err != nil || !created {
		t.Fatalf("create %s: created=%v err=%v", a.ID, created, err)
	}
}

func ids(as []finance.Approval) []string {
	out := make([]string, 0, len(as))
	for _, a := range as {
		out = append(out, a.ID)
	}
	return out
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
