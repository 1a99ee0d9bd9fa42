package intake_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// fakeTime is the run's clock. Nothing sleeps: a slow host moves it instead.
type fakeTime struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeTime) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeTime) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// slowHosts are host ERPs of which the slow ones answer only when their caller gives up:
// they take all the time their context allows (an hour without a deadline, as if the run
// were killed first), on the fake clock. polls records when each tenant was polled.
type slowHosts struct {
	clock *fakeTime
	slow  map[string]bool
	mu    sync.Mutex
	polls map[string][]time.Time
}

func (h *slowHosts) ListSyncErrors(ctx context.Context, tenantID string, _ time.Time, _ string, _ int) ([]json.RawMessage, string, error) {
	h.mu.Lock()
	h.polls[tenantID] = append(h.polls[tenantID], h.clock.Now())
	h.mu.Unlock()
	if !h.slow[tenantID] {
		return nil, "", nil
	}
	wait := time.Hour
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d)
	}
	h.clock.Advance(wait)
	return nil, "", context.DeadlineExceeded
}

// Five tenants whose host ERPs answer slowly must not starve a sixth: every run polls it
// before the run's deadline, the slow ones each get a bounded share and are counted as
// timed out, and a tenant that timed out is tried after the others next time.
func TestSlowTenantsDoNotStarveAnother(t *testing.T) {
	ctx := context.Background()
	tenants := tenanttest.NewStore()
	slow := map[string]bool{"a1": true, "a2": true, "a3": true, "a4": true, "a5": true}
	for _, id := range []string{"a1", "a2", "a3", "a4", "a5", "zz-fast"} { // the fast one sorts last
		if err := tenants.Create(ctx, tenant.Config{ID: id, Settings: map[string]string{
			tenant.KeyEnabled: "true", tenant.KeyWebhookEnabled: "true"}}); err != nil {
			t.Fatal(err)
		}
	}
	clk := &fakeTime{now: clock}
	hosts := &slowHosts{clock: clk, slow: slow, polls: map[string][]time.Time{}}
	claims := syncerrortest.NewClaimStore()
	const budget = 15 * time.Minute
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: &syncerrortest.Queue{}, Host: hosts, Watermarks: claims,
		Log: discardLogger(), Now: clk.Now, PollTime: time.Hour, Budget: budget, Metrics: discardWriter{}}
	for run := range 4 {
		start := clk.Now()
		rep, err := rc.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fast := hosts.polls["zz-fast"]
		if len(fast) != run+1 || !fast[run].Before(start.Add(budget)) {
			t.Fatalf("run %d: the fast tenant's polls %v; want one before the deadline %v", run, fast, start.Add(budget))
		}
		if rep.TenantsTimedOut != 5 {
			t.Fatalf("run %d: %d tenants timed out, want 5 (report %+v)", run, rep.TenantsTimedOut, rep)
		}
		if run > 0 && !fast[run].Equal(start) {
			t.Fatalf("run %d: the fast tenant was polled at %v, want first (%v): the slow ones timed out last run", run, fast[run], start)
		}
		clk.Advance(30 * time.Minute) // the next scheduled run
	}
}

// A run that starts too close to its deadline leaves every tenant to the next run and
// says so in its report.
func TestRunNearItsDeadlineLeavesTheRest(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	clk := &fakeTime{now: clock}
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: clk.Now,
		Budget: time.Second, Metrics: discardWriter{}}
	rep, err := rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Two tenants swept, one enabled to poll ("on"; "half" has its webhook off).
	if rep.TenantsSkipped != 3 {
		t.Fatalf("report %+v: want the 3 tenant steps skipped", rep)
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
