package ratebudget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// Budget is connector.Budget over a Store, sized by Vendors.
type Budget struct {
	store  Store
	now    func() time.Time
	limits map[connector.System]Limit

	mu sync.Mutex
	// seen is, per account, the count of its current window this process last saw, so
	// Observe writes only when the vendor counts more than the budget does.
	seen map[account]seenWindow
	// leases is, per account, its lease item as this process last saw it, so a take asks
	// for a slot that is likely free.
	leases map[account]State
	// holds is, per account that has only holds, what this process last read of its hold
	// item and when (takeHold).
	holds map[account]holdSeen
}

type holdSeen struct {
	read, until time.Time
}

// holdRecheck is how long a process goes by the hold it read for an account that has only
// holds (Salesforce), instead of reading the item on every write: one DynamoDB call less per
// write to the account (a flow event's 8 calls to 7). A hold is the vendor saying its
// allowance is spent; one another function sets is seen here at most this late, and a
// request sent meanwhile meets the vendor's own refusal (Salesforce's 403
// REQUEST_LIMIT_EXCEEDED), which is retried later like any rate limit. A hold this process
// sets itself (Observe) is seen at once.
const holdRecheck = time.Second

type account struct {
	tenant string
	system connector.System
}

type seenWindow struct {
	item string
	used int
}

var _ connector.Budget = (*Budget)(nil)

// New returns a Budget over store with the vendors' documented limits; now nil is
// time.Now.
func New(store Store, now func() time.Time) *Budget {
	return NewWithLimits(store, now, Vendors)
}

// NewWithLimits is New with other limits (the fault suite scales a minute down).
func NewWithLimits(store Store, now func() time.Time, limits map[connector.System]Limit) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{store: store, now: now, limits: limits, seen: map[account]seenWindow{}, leases: map[account]State{},
		holds: map[account]holdSeen{}}
}

// leaseRetry is the wait a take that found every slot held is told when no lease ends
// sooner: a vendor request takes about a second (an assumption), so a slot is likely free
// by then.
const leaseRetry = time.Second

// Take implements connector.Budget: one conditional update of the account's window, lease
// or hold item.
func (b *Budget) Take(ctx context.Context, tenantID string, system connector.System, calls int) (func(), time.Duration, error) {
	acct, lim, now := account{tenantID, system}, b.limits[system], b.now()
	switch {
	case lim.Requests > 0:
		return b.takeWindow(ctx, acct, lim, now, calls)
	case lim.Concurrent > 0:
		return b.takeLease(ctx, acct, lim, now)
	default:
		return b.takeHold(ctx, acct, now)
	}
}

// takeHold lets a write through an account that has only holds unless one is in force, as
// this process last read it within holdRecheck.
func (b *Budget) takeHold(ctx context.Context, acct account, now time.Time) (func(), time.Duration, error) {
	b.mu.Lock()
	seen, ok := b.holds[acct]
	b.mu.Unlock()
	if !ok || now.Sub(seen.read) >= holdRecheck || now.Before(seen.read) {
		st, _, err := b.store.Count(ctx, Key{acct.tenant, itemName(acct.system, "hold")}, now, 1, 0, now.Add(holdMax))
		if err != nil {
			return nil, 0, err
		}
		seen = holdSeen{read: now, until: st.NotBefore}
		b.noteHold(acct, seen)
	}
	if seen.until.After(now) {
		return nil, atLeastMs(seen.until.Sub(now)), nil
	}
	return noop, 0, nil
}

// noteHold keeps h as the account's hold unless this process knows of a later one.
func (b *Budget) noteHold(acct account, h holdSeen) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if cur, ok := b.holds[acct]; ok && cur.until.After(h.until) {
		h.until = cur.until
	}
	b.holds[acct] = h
}

func noop() {}

func itemName(system connector.System, kind string) string {
	return "ratebudget#" + string(system) + "#" + kind
}

// window is the item of the fixed window holding t.
func window(system connector.System, lim Limit, t time.Time) (item string, start time.Time) {
	start = t.Truncate(lim.Window)
	return fmt.Sprintf("%s#%d", itemName(system, "w"), start.UnixMilli()), start
}

func (b *Budget) takeWindow(ctx context.Context, acct account, lim Limit, now time.Time, calls int) (func(), time.Duration, error) {
	item, start := window(acct.system, lim, now)
	end := start.Add(lim.Window)
	st, ok, err := b.store.Count(ctx, Key{acct.tenant, item}, now, min(max(calls, 1), lim.Requests), lim.Requests, end.Add(lim.Window))
	if err != nil {
		return nil, 0, err
	}
	b.mu.Lock()
	b.seen[acct] = seenWindow{item, st.Used}
	b.mu.Unlock()
	switch {
	case ok:
		return noop, 0, nil
	case st.held(now):
		return nil, atLeastMs(st.NotBefore.Sub(now)), nil
	default:
		return nil, atLeastMs(end.Sub(now)), nil
	}
}

func (b *Budget) takeLease(ctx context.Context, acct account, lim Limit, now time.Time) (func(), time.Duration, error) {
	k := Key{acct.tenant, itemName(acct.system, "lease")}
	ttl := lim.LeaseTTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	b.mu.Lock()
	seen := b.leases[acct]
	b.mu.Unlock()
	slot, _ := freeSlot(seen, lim.Concurrent, now)
	until := now.Add(ttl).Truncate(time.Millisecond)
	st, ok, err := b.store.Lease(ctx, k, now, slot, until, until.Add(ttl))
	if err == nil && !ok && !st.held(now) {
		// This process's view was stale; the item as it stood names a free slot, if any.
		// This second update is the only one a take ever sends.
		if again, free := freeSlot(st, lim.Concurrent, now); free {
			slot = again
			st, ok, err = b.store.Lease(ctx, k, now, slot, until, until.Add(ttl))
		}
	}
	if err != nil {
		return nil, 0, err
	}
	b.mu.Lock()
	b.leases[acct] = st
	b.mu.Unlock()
	if ok {
		return b.releaser(ctx, acct, k, slot, until), 0, nil
	}
	if st.held(now) {
		return nil, atLeastMs(st.NotBefore.Sub(now)), nil
	}
	wait := leaseRetry
	for s := range lim.Concurrent {
		if end, held := st.Slots[s]; held && end.Sub(now) < wait {
			wait = end.Sub(now)
		}
	}
	return nil, atLeastMs(wait), nil
}

// freeSlot picks a slot free at now in st, starting at a random one so that processes
// with the same view do not all ask for the same slot; free false means none is.
func freeSlot(st State, slots int, now time.Time) (int, bool) {
	first := rand.N(slots)
	for i := range slots {
		if s := (first + i) % slots; st.free(s, now) {
			return s, true
		}
	}
	return first, false
}

// releaser gives the slot back once, even when the write's ctx has ended.
func (b *Budget) releaser(ctx context.Context, acct account, k Key, slot int, until time.Time) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			// A failed release leaves the slot held until its lease ends: slower, not wrong.
			_ = b.store.Release(rctx, k, slot, until)
			b.mu.Lock()
			if st, ok := b.leases[acct]; ok && st.Slots[slot].Equal(until) {
				st.Slots = cloneWithout(st.Slots, slot)
				b.leases[acct] = st
			}
			b.mu.Unlock()
		})
	}
}

func cloneWithout(slots map[int]time.Time, slot int) map[int]time.Time {
	out := make(map[int]time.Time, len(slots))
	for s, end := range slots {
		if s != slot {
			out[s] = end
		}
	}
	return out
}

// atLeastMs keeps a refusal's wait positive: zero would mean "go ahead".
func atLeastMs(d time.Duration) time.Duration { return max(d, time.Millisecond) }

// holdMax bounds a hold and the life of a hold item.
const holdMax = time.Hour

// Observe implements connector.Budget (observe.go reads the headers).
func (b *Budget) Observe(ctx context.Context, tenantID string, system connector.System, status int, h http.Header) {
	now := b.now()
	sig := readSignal(system, status, h, now)
	if sig.none() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// Errors are dropped: a lost drain costs a vendor refusal later, which is deferred too.
	_ = b.apply(ctx, account{tenantID, system}, sig, now)
}

func (b *Budget) apply(ctx context.Context, acct account, sig signal, now time.Time) error {
	lim := b.limits[acct.system]
	if lim.Requests <= 0 {
		if !sig.until.After(now) {
			return nil
		}
		if lim.Concurrent > 0 {
			return b.store.Hold(ctx, Key{acct.tenant, itemName(acct.system, "lease")}, sig.until, sig.until.Add(holdMax))
		}
		if err := b.store.Hold(ctx, Key{acct.tenant, itemName(acct.system, "hold")}, sig.until, sig.until.Add(holdMax)); err != nil {
			return err
		}
		b.noteHold(acct, holdSeen{read: now, until: sig.until})
		return nil
	}
	item, start := window(acct.system, lim, now)
	if sig.until.After(now) {
		// Every window the wait reaches is held until the vendor's allowance returns.
		for t := start; t.Before(sig.until) && t.Before(now.Add(holdMax)); t = t.Add(lim.Window) {
			w, _ := window(acct.system, lim, t)
			if err := b.store.Hold(ctx, Key{acct.tenant, w}, sig.until, t.Add(2*lim.Window)); err != nil {
				return err
			}
		}
		return nil
	}
	used := lim.Requests - sig.remaining
	b.mu.Lock()
	seen := b.seen[acct]
	b.mu.Unlock()
	if sig.remaining < 0 || seen.item == item && seen.used >= used {
		return nil
	}
	if err := b.store.Raise(ctx, Key{acct.tenant, item}, used, start.Add(2*lim.Window)); err != nil {
		return err
	}
	b.mu.Lock()
	if cur := b.seen[acct]; cur.item != item || cur.used < used {
		b.seen[acct] = seenWindow{item, used}
	}
	b.mu.Unlock()
	return nil
}
