package ratebudget_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/ratebudget"
)

var (
	ctx  = context.Background()
	base = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
)

func fixed(now *time.Time) func() time.Time { return func() time.Time { return *now } }

// The vendor counting fewer remaining than the budget (another integration on the same key,
// a read the budget did not see) takes the difference out of the window.
func TestShipStationRemainingLowersTheWindow(t *testing.T) {
	now := base.Add(5 * time.Second)
	b := ratebudget.New(ratebudget.NewMemoryStore(), fixed(&now))
	if _, wait, _ := b.Take(ctx, "t", connector.SystemShipping, 2); wait != 0 {
		t.Fatal("the first write was refused")
	}
	b.Observe(ctx, "t", connector.SystemShipping, http.StatusOK,
		http.Header{"X-Rate-Limit-Limit": {"40"}, "X-Rate-Limit-Remaining": {"3"}, "X-Rate-Limit-Reset": {"30"}})
	if _, wait, _ := b.Take(ctx, "t", connector.SystemShipping, 2); wait != 0 {
		t.Fatal("a write within the vendor's 3 remaining was refused")
	}
	if _, wait, _ := b.Take(ctx, "t", connector.SystemShipping, 2); wait != 55*time.Second {
		t.Fatalf("a write past the vendor's remaining waits %v, want the window's end (55s)", wait)
	}
}

func TestSalesforceUsedUpHoldsTheOrg(t *testing.T) {
	now := base
	b := ratebudget.New(ratebudget.NewMemoryStore(), fixed(&now))
	b.Observe(ctx, "t", connector.SystemCRM, http.StatusOK, http.Header{"Sforce-Limit-Info": {"api-usage=4999/5000"}})
	if _, wait, _ := b.Take(ctx, "t", connector.SystemCRM, 2); wait != 0 {
		t.Fatal("an org with a request left was refused")
	}
	b.Observe(ctx, "t", connector.SystemCRM, http.StatusOK,
		http.Header{"Sforce-Limit-Info": {"api-usage=5000/5000; per-app-api-usage=17/250(appName=sample-connected-app)"}})
	if _, wait, _ := b.Take(ctx, "t", connector.SystemCRM, 2); wait != 15*time.Minute {
		t.Fatalf("an org whose daily requests are spent waits %v, want 15m", wait)
	}
	if _, wait, _ := b.Take(ctx, "other", connector.SystemCRM, 2); wait != 0 {
		t.Fatal("another tenant's org was held")
	}
}

func TestRetryAfterHoldsALeasedAccount(t *testing.T) {
	now := base
	b := ratebudget.New(ratebudget.NewMemoryStore(), fixed(&now))
	b.Observe(ctx, "t", connector.SystemERP2, http.StatusTooManyRequests, http.Header{"Retry-After": {"12"}})
	if _, wait, _ := b.Take(ctx, "t", connector.SystemERP2, 2); wait != 12*time.Second {
		t.Fatalf("Business Central after 429 Retry-After 12: wait %v", wait)
	}
	b.Observe(ctx, "t", connector.SystemHostERP, http.StatusOK, http.Header{"Retry-After": {"12"}})
	if _, wait, _ := b.Take(ctx, "t", connector.SystemHostERP, 2); wait != 0 {
		t.Fatal("a Retry-After on a 200 held the account")
	}
}

func TestMailchimpTenConnections(t *testing.T) {
	now := base
	b := ratebudget.New(ratebudget.NewMemoryStore(), fixed(&now))
	for i := range 10 {
		if _, wait, _ := b.Take(ctx, "t", connector.SystemMarketing, 2); wait != 0 {
			t.Fatalf("connection %d refused", i+1)
		}
	}
	if _, wait, _ := b.Take(ctx, "t", connector.SystemMarketing, 2); wait != time.Second {
		t.Fatalf("an eleventh connection waits %v, want 1s", wait)
	}
	now = now.Add(ratebudget.DefaultLeaseTTL)
	if _, wait, _ := b.Take(ctx, "t", connector.SystemMarketing, 2); wait != 0 {
		t.Fatal("leases never given back were not reclaimed after their TTL")
	}
}

// countingStore counts the Count calls it passes on.
type countingStore struct {
	ratebudget.Store
	counts int
}

func (s *countingStore) Count(ctx context.Context, k ratebudget.Key, now time.Time, n, limit int, expires time.Time) (ratebudget.State, bool, error) {
	s.counts++
	return s.Store.Count(ctx, k, now, n, limit, expires)
}

// An account with only holds (Salesforce) is read once a second per process, not on every
// write: a hold another process sets is honoured from the next read, one this process
// sets at once.
func TestSalesforceHoldIsReadOnceASecond(t *testing.T) {
	now := base
	store := &countingStore{Store: ratebudget.NewMemoryStore()}
	b, other := ratebudget.New(store, fixed(&now)), ratebudget.New(store, fixed(&now))
	for range 5 {
		if _, wait, err := b.Take(ctx, "t", connector.SystemCRM, 2); wait != 0 || err != nil {
			t.Fatalf("an org with no hold: wait %v, %v", wait, err)
		}
		now = now.Add(100 * time.Millisecond)
	}
	if store.counts != 1 {
		t.Fatalf("five writes within a second read the hold %d times, want once", store.counts)
	}
	other.Observe(ctx, "t", connector.SystemCRM, http.StatusOK, http.Header{"Sforce-Limit-Info": {"api-usage=5000/5000"}})
	if _, wait, _ := other.Take(ctx, "t", connector.SystemCRM, 2); wait == 0 {
		t.Fatal("the process that set the hold let a write through")
	}
	if _, wait, _ := b.Take(ctx, "t", connector.SystemCRM, 2); wait != 0 {
		t.Fatal("the hold was read again before a second had passed")
	}
	now = now.Add(500 * time.Millisecond)
	if _, wait, _ := b.Take(ctx, "t", connector.SystemCRM, 2); wait <= 0 || wait > 15*time.Minute {
		t.Fatalf("a second after its last read the other process's hold waits %v, want up to 15m", wait)
	}
}
