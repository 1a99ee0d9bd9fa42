package syncerror_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func reconcileFixture(t *testing.T) (*tenanttest.Store, *syncerrortest.ClaimStore, *syncerrortest.Queue) {
	t.Helper()
	tenants := tenanttest.NewStore()
	for id, flags := range map[string][2]string{"on": {"true", "true"}, "half": {"true", "false"}} {
		err := tenants.Create(context.Background(), tenant.Config{ID: id, Settings: map[string]string{
			tenant.KeyEnabled: flags[0], tenant.KeyWebhookEnabled: flags[1]}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return tenants, syncerrortest.NewClaimStore(), &syncerrortest.Queue{}
}

func TestReconcileRequeuesOnlyStuckClaimsOfEnabledTenants(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	old := claimed(t, claims, "on", "E-old", clock)
	claimed(t, claims, "on", "E-fresh", clock.Add(9*time.Minute))
	claimed(t, claims, "half", "E-old", clock)
	diag := claimed(t, claims, "on", "E-diag", clock)
	if _, err := claims.BeginDiagnosis(context.Background(), "on", diag.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	now := clock.Add(syncerror.DefaultStuckAfter + time.Minute)
	rc := &syncerror.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
	rep, err := rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tenants != 1 || rep.Requeued != 1 {
		t.Fatalf("report %+v", rep)
	}
	if sent := queue.Sent(); len(sent) != 1 || sent[0] != (syncerror.Message{TenantID: "on", ID: old.ID}) {
		t.Fatalf("sent %+v", sent)
	}
	// A second run right after finds nothing: the row was re-stamped.
	rep, _ = rc.Run(context.Background())
	if rep.Requeued != 0 || len(queue.Sent()) != 1 {
		t.Fatalf("second run %+v, sent %d", rep, len(queue.Sent()))
	}
}

func TestReconcileOverlappingRunsEnqueueOnce(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	for i := 0; i < 250; i++ {
		claimed(t, claims, "on", fmt.Sprintf("E-%d", i), clock.Add(time.Duration(i)*time.Millisecond))
	}
	now := clock.Add(time.Hour)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := &syncerror.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
			if _, err := rc.Run(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, m := range queue.Sent() {
		seen[m.ID]++
	}
	if len(seen) != 250 {
		t.Fatalf("%d distinct claims enqueued, want 250", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("claim %s enqueued %d times", id, n)
		}
	}
}

func TestReconcileSendFailureLeavesClaimForNextRun(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	c := claimed(t, claims, "on", "E-1", clock)
	queue.SetFail(errors.New("sqs down"))
	now := clock.Add(time.Hour)
	rc := &syncerror.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
	rep, err := rc.Run(context.Background())
	if err != nil || rep.SendFailed != 1 || rep.Requeued != 0 {
		t.Fatalf("report %+v err=%v", rep, err)
	}
	queue.SetFail(nil)
	now = now.Add(syncerror.DefaultStuckAfter + time.Second)
	rep, _ = rc.Run(context.Background())
	if rep.Requeued != 1 || len(queue.Sent()) != 1 || queue.Sent()[0].ID != c.ID {
		t.Fatalf("report %+v sent %+v", rep, queue.Sent())
	}
}
