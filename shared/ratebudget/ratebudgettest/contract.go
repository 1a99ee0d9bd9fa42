// Package ratebudgettest holds the contract every ratebudget.Store keeps: the memory store
// and the DynamoDB store on each emulator run the same cases.
package ratebudgettest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/ratebudget"
)

// base is a minute boundary, so windows start where the cases expect.
var base = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// RunStoreContract runs the contract on stores made by newStore, one per case.
func RunStoreContract(t *testing.T, newStore func(t *testing.T) ratebudget.Store) {
	cases := map[string]func(*testing.T, ratebudget.Store){
		"count grants up to the limit and refuses beyond": countLimit,
		"count without a limit only honours the hold":     countUnlimited,
		"items and tenants are counted apart":             countApart,
		"a hold refuses until it ends; a later one stays": holdRefuses,
		"raise only raises":                               raiseOnly,
		"a slot is leased once until released or ended":   leaseSlot,
		"a hold refuses leases":                           leaseHeld,
		"concurrent counts never pass the limit":          countRace,
		"concurrent leases of one slot grant one":         leaseRace,
		"budget: a window, its drain and its reset":       budgetWindow,
		"budget: leases bound what is in flight":          budgetLease,
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run(t, newStore(t))
		})
	}
}

var ctx = context.Background()

// tenant is unique to the case: the cases share one table and run in parallel.
func tenant(t *testing.T, name string) string { return t.Name() + "/" + name }

func key(t *testing.T, tenantName, item string) ratebudget.Key {
	return ratebudget.Key{Tenant: tenant(t, tenantName), Item: "ratebudget#" + item}
}

func must[T any](t *testing.T) func(T, bool, error) (T, bool) {
	return func(v T, ok bool, err error) (T, bool) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v, ok
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func countLimit(t *testing.T, s ratebudget.Store) {
	k, exp := key(t, "t1", "w"), base.Add(time.Hour)
	for i := 1; i <= 3; i++ {
		st, ok := must[ratebudget.State](t)(s.Count(ctx, k, base, 2, 7, exp))
		if !ok || st.Used != 2*i {
			t.Fatalf("take %d: ok=%v used=%d, want granted with %d", i, ok, st.Used, 2*i)
		}
	}
	st, ok := must[ratebudget.State](t)(s.Count(ctx, k, base, 2, 7, exp))
	if ok || st.Used != 6 {
		t.Fatalf("a take past the limit: ok=%v used=%d, want refused at 6", ok, st.Used)
	}
	if st, ok = must[ratebudget.State](t)(s.Count(ctx, k, base, 1, 7, exp)); !ok || st.Used != 7 {
		t.Fatalf("the last request of the limit: ok=%v used=%d", ok, st.Used)
	}
}

func countUnlimited(t *testing.T, s ratebudget.Store) {
	k := key(t, "t1", "hold")
	for range 5 {
		if _, ok := must[ratebudget.State](t)(s.Count(ctx, k, base, 1, 0, base.Add(time.Hour))); !ok {
			t.Fatal("a count without a limit was refused")
		}
	}
	noErr(t, s.Hold(ctx, k, base.Add(time.Second), base.Add(time.Hour)))
	if _, ok := must[ratebudget.State](t)(s.Count(ctx, k, base, 1, 0, base.Add(time.Hour))); ok {
		t.Fatal("a held item granted a count")
	}
}

func countApart(t *testing.T, s ratebudget.Store) {
	exp := base.Add(time.Hour)
	must[ratebudget.State](t)(s.Count(ctx, key(t, "t1", "a"), base, 1, 1, exp))
	if _, ok := must[ratebudget.State](t)(s.Count(ctx, key(t, "t1", "b"), base, 1, 1, exp)); !ok {
		t.Fatal("another item of the tenant was refused")
	}
	if _, ok := must[ratebudget.State](t)(s.Count(ctx, key(t, "t2", "a"), base, 1, 1, exp)); !ok {
		t.Fatal("another tenant's item was refused")
	}
}

func holdRefuses(t *testing.T, s ratebudget.Store) {
	k, exp := key(t, "t1", "w"), base.Add(time.Hour)
	noErr(t, s.Hold(ctx, k, base.Add(30*time.Second), exp))
	noErr(t, s.Hold(ctx, k, base.Add(10*time.Second), exp))
	st, ok := must[ratebudget.State](t)(s.Count(ctx, k, base.Add(20*time.Second), 1, 5, exp))
	if ok || !st.NotBefore.Equal(base.Add(30*time.Second)) {
		t.Fatalf("count under a hold: ok=%v notBefore=%v, want refused until +30s (an earlier hold does not shorten it)", ok, st.NotBefore)
	}
	if st, ok = must[ratebudget.State](t)(s.Count(ctx, k, base.Add(30*time.Second), 1, 5, exp)); !ok || st.Used != 1 {
		t.Fatalf("count when the hold ends: ok=%v used=%d", ok, st.Used)
	}
}

func raiseOnly(t *testing.T, s ratebudget.Store) {
	k, exp := key(t, "t1", "w"), base.Add(time.Hour)
	noErr(t, s.Raise(ctx, k, 4, exp))
	must[ratebudget.State](t)(s.Count(ctx, k, base, 2, 10, exp))
	noErr(t, s.Raise(ctx, k, 3, exp))
	st, _ := must[ratebudget.State](t)(s.Count(ctx, k, base, 1, 10, exp))
	if st.Used != 7 {
		t.Fatalf("used %d, want 7 (raised to 4, 2 counted, a lower raise ignored, 1 counted)", st.Used)
	}
	if _, ok := must[ratebudget.State](t)(s.Count(ctx, k, base, 4, 10, exp)); ok {
		t.Fatal("a raised count left room it should not")
	}
}

func leaseSlot(t *testing.T, s ratebudget.Store) {
	k, end, exp := key(t, "t1", "lease"), base.Add(time.Minute), base.Add(time.Hour)
	st, ok := must[ratebudget.State](t)(s.Lease(ctx, k, base, 0, end, exp))
	if !ok || !st.Slots[0].Equal(end) {
		t.Fatalf("first lease: ok=%v slots=%v", ok, st.Slots)
	}
	if st, ok = must[ratebudget.State](t)(s.Lease(ctx, k, base, 0, end, exp)); ok || !st.Slots[0].Equal(end) {
		t.Fatalf("a held slot: ok=%v slots=%v, want refused showing the lease", ok, st.Slots)
	}
	if _, ok = must[ratebudget.State](t)(s.Lease(ctx, k, base, 1, end, exp)); !ok {
		t.Fatal("a free slot was refused")
	}
	noErr(t, s.Release(ctx, k, 0, end.Add(time.Second))) // not this lease: kept
	if _, ok = must[ratebudget.State](t)(s.Lease(ctx, k, base, 0, end, exp)); ok {
		t.Fatal("a release of another lease freed the slot")
	}
	noErr(t, s.Release(ctx, k, 0, end))
	if _, ok = must[ratebudget.State](t)(s.Lease(ctx, k, base, 0, end, exp)); !ok {
		t.Fatal("a released slot was refused")
	}
	if _, ok = must[ratebudget.State](t)(s.Lease(ctx, k, end, 1, end.Add(time.Minute), exp)); !ok {
		t.Fatal("a lease that ended was not reclaimed")
	}
}

func leaseHeld(t *testing.T, s ratebudget.Store) {
	k, exp := key(t, "t1", "lease"), base.Add(time.Hour)
	noErr(t, s.Hold(ctx, k, base.Add(5*time.Second), exp))
	st, ok := must[ratebudget.State](t)(s.Lease(ctx, k, base, 0, base.Add(time.Minute), exp))
	if ok || !st.NotBefore.Equal(base.Add(5*time.Second)) {
		t.Fatalf("lease under a hold: ok=%v notBefore=%v", ok, st.NotBefore)
	}
}

func countRace(t *testing.T, s ratebudget.Store) {
	k := key(t, "t1", "w")
	granted := race(t, 24, func() (bool, error) {
		_, ok, err := s.Count(ctx, k, base, 1, 10, base.Add(time.Hour))
		return ok, err
	})
	if granted != 10 {
		t.Fatalf("%d of 24 concurrent takes granted, want exactly the limit of 10", granted)
	}
}

func leaseRace(t *testing.T, s ratebudget.Store) {
	k := key(t, "t1", "lease")
	granted := race(t, 12, func() (bool, error) {
		_, ok, err := s.Lease(ctx, k, base, 2, base.Add(time.Minute), base.Add(time.Hour))
		return ok, err
	})
	if granted != 1 {
		t.Fatalf("%d of 12 concurrent leases of one slot granted, want 1", granted)
	}
}

func race(t *testing.T, n int, take func() (bool, error)) int {
	t.Helper()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		granted int
		failed  error
	)
	for range n {
		wg.Go(func() {
			ok, err := take()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = err
			}
			if ok {
				granted++
			}
		})
	}
	wg.Wait()
	noErr(t, failed)
	return granted
}

// budgetWindow: ShipStation's 40 a minute, 2 per write; the vendor's "none remaining"
// drains the window until its reset, which may reach into the next window.
func budgetWindow(t *testing.T, s ratebudget.Store) {
	now := base.Add(10 * time.Second)
	b := ratebudget.New(s, func() time.Time { return now })
	for i := range 20 {
		if _, wait, err := b.Take(ctx, tenant(t, "t1"), connector.SystemShipping, 2); err != nil || wait != 0 {
			t.Fatalf("write %d: wait %v err %v, want budget", i, wait, err)
		}
	}
	if _, wait, _ := b.Take(ctx, tenant(t, "t1"), connector.SystemShipping, 2); wait != 50*time.Second {
		t.Fatalf("write 21 waits %v, want 50s (the window's end)", wait)
	}
	now = base.Add(61 * time.Second)
	if _, wait, _ := b.Take(ctx, tenant(t, "t1"), connector.SystemShipping, 2); wait != 0 {
		t.Fatalf("the next window refused: wait %v", wait)
	}
	b.Observe(ctx, tenant(t, "t1"), connector.SystemShipping, http.StatusTooManyRequests,
		http.Header{"X-Rate-Limit-Remaining": {"0"}, "X-Rate-Limit-Reset": {"70"}})
	if _, wait, _ := b.Take(ctx, tenant(t, "t1"), connector.SystemShipping, 2); wait != 70*time.Second {
		t.Fatalf("after the vendor's 429 a write waits %v, want its reset of 70s", wait)
	}
	now = base.Add(125 * time.Second)
	if _, wait, _ := b.Take(ctx, tenant(t, "t1"), connector.SystemShipping, 2); wait != 6*time.Second {
		t.Fatalf("the next window waits %v, want the rest of the vendor's reset (6s)", wait)
	}
}

// budgetLease: NetSuite's 5 in flight; a release frees a slot for the next.
func budgetLease(t *testing.T, s ratebudget.Store) {
	now := base
	b := ratebudget.New(s, func() time.Time { return now })
	var releases []func()
	for i := range 5 {
		release, wait, err := b.Take(ctx, tenant(t, "t1"), connector.SystemHostERP, 2)
		if err != nil || wait != 0 {
			t.Fatalf("lease %d: wait %v err %v", i, wait, err)
		}
		releases = append(releases, release)
	}
	// Another process with no view of the leases asks too.
	other := ratebudget.New(s, func() time.Time { return now })
	if _, wait, _ := other.Take(ctx, tenant(t, "t1"), connector.SystemHostERP, 2); wait == 0 {
		t.Fatal("a sixth request in flight was let through")
	}
	releases[3]()
	if _, wait, _ := other.Take(ctx, tenant(t, "t1"), connector.SystemHostERP, 2); wait != 0 {
		t.Fatalf("a released slot was not found: wait %v", wait)
	}
}
