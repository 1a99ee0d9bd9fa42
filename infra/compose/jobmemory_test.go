package compose_test

import (
	"context"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
)

// An all-tenant job's memory outlives its process: the tenant that ran out of time in one
// run goes last in the next run of a freshly loaded stack (a cold start), and the wired
// reconcile and session reaper keep theirs in their tables the same way.
func TestScheduledJobsRememberLateTenantsAcrossColdStarts(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	ctx := context.Background()
	if _, err := (tenant.Admin{Store: e.deps.Tenants}).Create(ctx, "zeta", nil); err != nil {
		t.Fatal(err)
	}
	order := func(s *compose.Stack, job string, late string) []string {
		var ran []string
		if _, err := s.EachTenant(ctx, job, blueprint.Flows, func(_ context.Context, id string) error {
			ran = append(ran, id)
			if id == late {
				return context.DeadlineExceeded
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return ran
	}
	natural := order(e.deps, "control", "")
	first := natural[0]
	order(e.deps, "job", first) // first runs out of its share

	cold, err := compose.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cold.Now = e.deps.Now
	if got := order(cold, "job", ""); got[len(got)-1] != first || len(got) != len(natural) {
		t.Fatalf("after a cold start the job ran %v; want %s, which ran out of time, last (natural order %v)", got, first, natural)
	}

	if err := e.deps.Queue.Reconcile().SweepOrder.SetLate(ctx, []string{"zeta"}); err != nil {
		t.Fatal(err)
	}
	if late, err := cold.Queue.Reconcile().PollOrder.Late(ctx); err != nil || len(late) != 0 {
		t.Fatalf("the reconcile's poll phase reads %v %v; want its own memory, empty", late, err)
	}
	if late, err := cold.Queue.Reconcile().SweepOrder.Late(ctx); err != nil || !slices.Equal(late, []string{"zeta"}) {
		t.Fatalf("a cold reconcile's sweep reads %v %v; want zeta", late, err)
	}
	if err := e.deps.Sessions().ReapOrder.SetLate(ctx, []string{"demo"}); err != nil {
		t.Fatal(err)
	}
	if late, err := cold.Sessions().ReapOrder.Late(ctx); err != nil || !slices.Equal(late, []string{"demo"}) {
		t.Fatalf("a cold session reaper reads %v %v; want demo", late, err)
	}
}
