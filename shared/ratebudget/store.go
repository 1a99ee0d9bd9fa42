package ratebudget

import (
	"context"
	"time"
)

// Key names one budget item: a tenant and the item's name under it (see Budget for the
// names: one per window, one lease, one hold).
type Key struct{ Tenant, Item string }

// State is a budget item as it stood.
type State struct {
	// Used is the window's count of requests.
	Used int
	// NotBefore, when set, is when the vendor said its allowance returns: nothing is taken
	// before it.
	NotBefore time.Time
	// Slots are the held leases, by slot, with when each ends.
	Slots map[int]time.Time
}

// Store keeps the budget items. Every call is one conditional write; the DynamoDB store
// and the memory store behave the same (ratebudgettest holds both to one contract).
type Store interface {
	// Count adds n to the item's count when it stays within limit (limit <= 0: no count,
	// only the hold) and no hold is in force at now. ok false returns the item as it stood,
	// so the caller can tell how long to wait. expires is when the item may be forgotten.
	Count(ctx context.Context, k Key, now time.Time, n, limit int, expires time.Time) (st State, ok bool, err error)
	// Lease takes slot until until when the slot is free at now (never held, or its lease
	// ended) and no hold is in force. It returns the item as it stands after the take, or
	// as it stood when ok is false.
	Lease(ctx context.Context, k Key, now time.Time, slot int, until, expires time.Time) (st State, ok bool, err error)
	// Release frees slot when it still holds the lease ending at until (a lease reclaimed
	// after its end and taken by another is not theirs to free).
	Release(ctx context.Context, k Key, slot int, until time.Time) error
	// Hold refuses Count and Lease on the item before until; a hold ending later is kept.
	Hold(ctx context.Context, k Key, until, expires time.Time) error
	// Raise makes the item's count at least used; a higher count is kept.
	Raise(ctx context.Context, k Key, used int, expires time.Time) error
}

// free says whether a slot is free at now.
func (s State) free(slot int, now time.Time) bool {
	end, held := s.Slots[slot]
	return !held || !end.After(now)
}

// held says whether a hold is in force at now.
func (s State) held(now time.Time) bool { return s.NotBefore.After(now) }
