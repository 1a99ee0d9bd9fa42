package intake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
)

// loopingHost answers every page with the same cursor, as a broken host ERP might.
type loopingHost struct{ fakeHost }

func (h *loopingHost) ListSyncErrors(ctx context.Context, tenantID string, since time.Time, cursor string, limit int) ([]json.RawMessage, string, error) {
	items, _, err := h.fakeHost.ListSyncErrors(ctx, tenantID, since, "", limit)
	return items, "again", err
}

// slowHost takes delay per page and never runs out of pages.
type slowHost struct {
	fakeHost
	delay time.Duration
	pages int
}

func (h *slowHost) ListSyncErrors(ctx context.Context, tenantID string, since time.Time, cursor string, limit int) ([]json.RawMessage, string, error) {
	select {
	case <-ctx.Done():
		return nil, "", ctx.Err()
	case <-time.After(h.delay):
	}
	h.pages++
	items, _, err := h.fakeHost.ListSyncErrors(ctx, tenantID, since, "", limit)
	return items, fmt.Sprint(h.pages), err
}

func pollRun(t *testing.T, host intake.HostErrors, budget time.Duration) (intake.Report, time.Time, error) {
	t.Helper()
	tenants, claims, queue := reconcileFixture(t)
	now := clock.Add(time.Hour)
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Host: host, Watermarks: claims,
		Log: discardLogger(), Now: func() time.Time { return now }, StuckAfter: 2 * time.Hour, PollTime: budget}
	rep, err := rc.Run(context.Background())
	w, _ := claims.Watermark(context.Background(), "on")
	return rep, w, err
}

// A host that repeats its cursor is left after the page that repeated it, with what it
// listed claimed, and the step reports the error.
func TestPollStopsAtARepeatedCursor(t *testing.T) {
	host := &loopingHost{}
	host.add(t, "on", "H-1", clock)
	host.add(t, "on", "H-2", clock.Add(time.Minute))
	rep, w, err := pollRun(t, host, 0)
	if err != nil || rep.Claimed != 2 || rep.PollsCut != 1 || rep.Errors != 1 || host.calls > 3 {
		t.Fatalf("report %+v err %v after %d calls", rep, err, host.calls)
	}
	if !w.IsZero() {
		t.Fatalf("watermark %v: a repeated page is not a listing in order, the watermark stays", w)
	}
}

// A host with endless pages is read MaxPollPages pages per run.
func TestPollReadsAtMostMaxPollPages(t *testing.T) {
	host := &slowHost{}
	host.add(t, "on", "H-1", clock)
	rep, _, err := pollRun(t, host, 0)
	if err != nil || host.pages != intake.MaxPollPages || rep.PollsCut != 1 || rep.Errors != 0 {
		t.Fatalf("report %+v err %v after %d pages", rep, err, host.pages)
	}
}

// A slow host is left when the tenant's poll time is spent; the run still ends normally.
func TestPollStopsWhenItsTimeIsSpent(t *testing.T) {
	host := &slowHost{delay: 20 * time.Millisecond}
	host.add(t, "on", "H-1", clock)
	rep, _, err := pollRun(t, host, 50*time.Millisecond)
	if err != nil || host.pages >= intake.MaxPollPages || rep.PollsCut != 1 || rep.Claimed != 1 {
		t.Fatalf("report %+v err %v after %d pages", rep, err, host.pages)
	}
}

// An occurredAt far in the future cannot pin the watermark there: it counts as now.
func TestPollClampsAFutureOccurredAt(t *testing.T) {
	host := &fakeHost{}
	host.add(t, "on", "H-1", clock)
	host.add(t, "on", "H-future", clock.Add(365*24*time.Hour))
	rep, w, err := pollRun(t, host, 0)
	now := clock.Add(time.Hour)
	if err != nil || rep.Claimed != 2 || !w.Equal(now) {
		t.Fatalf("report %+v err %v watermark %v, want %v", rep, err, w, now)
	}
}

// A poll cut by the page limit advances the watermark to the newest error seen only when
// the pages came oldest first: otherwise an unseen page may hold older errors.
func TestPollCutAdvancesOnlyInOrder(t *testing.T) {
	const n = 2*intake.MaxPollPages + 10 // more than the limit reads, two per page
	for _, ascending := range []bool{true, false} {
		host := &fakeHost{}
		for i := range n {
			at := clock.Add(time.Duration(i) * time.Minute)
			if !ascending {
				at = clock.Add(time.Duration(n-i) * time.Minute)
			}
			host.add(t, "on", fmt.Sprintf("H-%d", i), at)
		}
		rep, w, err := pollRun(t, host, 0)
		if err != nil || rep.Claimed != 2*intake.MaxPollPages || rep.PollsCut != 1 {
			t.Fatalf("ascending %v: report %+v err %v", ascending, rep, err)
		}
		want := time.Time{}
		if ascending {
			want = clock.Add(time.Duration(2*intake.MaxPollPages-1) * time.Minute)
		}
		if !w.Equal(want) {
			t.Errorf("ascending %v: watermark %v, want %v", ascending, w, want)
		}
	}
}

// ctxClaims fails the lease query once the run's context is done, as DynamoDB would.
type ctxClaims struct{ *syncerrortest.ClaimStore }

func (c ctxClaims) ExpiredLeases(ctx context.Context, tenantID string, now time.Time, limit int) ([]syncerror.Claim, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.ClaimStore.ExpiredLeases(ctx, tenantID, now, limit)
}

// Every tenant's expired leases are swept before any host ERP is polled: a host that hangs
// for the whole run cannot keep another tenant's approve in applying.
func TestSweepsRunBeforeAnyPoll(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	for _, id := range []string{"aaa", "zzz"} { // listed before and after "on"
		if err := tenants.Create(context.Background(), tenant.Config{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, id := range []string{"aaa", "zzz"} {
		c := readyClaim(t, claims, id, "E-1", clock)
		if _, err := claims.BeginApply(context.Background(), id, c.ID, syncerror.StatusPending, syncerror.Lease{Token: "dead", ExpiresAt: clock.Add(time.Minute)},
			nil, syncerror.HistoryEntry{Action: "approve"}, clock); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	// Every host takes all the time it is given (on the run's clock: nothing sleeps).
	clk := &fakeTime{now: clock.Add(time.Hour)}
	hosts := &slowHosts{clock: clk, slow: map[string]bool{"aaa": true, "on": true, "zzz": true}, polls: map[string][]time.Time{}}
	rc := &intake.Reconcile{Tenants: tenants, Claims: ctxClaims{claims}, Queue: queue, Host: hosts, Watermarks: claims,
		Log: discardLogger(), Now: clk.Now, StuckAfter: 2 * time.Hour, PollTime: time.Hour, Budget: 15 * time.Minute,
		Metrics: discardWriter{}}
	if _, err := rc.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"aaa", "zzz"} {
		if row, _ := claims.Get(context.Background(), id, ids[i]); row.Status != syncerror.StatusPending {
			t.Errorf("tenant %s: lease not swept (%s)", id, row.Status)
		}
	}
}
