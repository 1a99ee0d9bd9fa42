package tenantrun_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/tenantrun"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

// runMemoryContract checks a Memory through Run. open returns the job's memory as a new
// process would see it (for a durable one, a new value over the same store): what one run
// learns, the next run uses, and a tenant that ran in time or is gone is forgotten.
func runMemoryContract(t *testing.T, open func() tenantrun.Memory) {
	ctx := context.Background()
	ids := []string{"a", "b", "c", "d"}
	plan := func() tenantrun.Plan { return tenantrun.Plan{Now: func() time.Time { return t0 }, Memory: open()} }
	slow := func(late ...string) func(context.Context, string) error {
		return func(_ context.Context, id string) error {
			if slices.Contains(late, id) {
				return context.DeadlineExceeded
			}
			return nil
		}
	}
	order := func() []string {
		var got []string
		res := tenantrun.Run(ctx, ids, plan(), func(_ context.Context, id string) error { got = append(got, id); return nil })
		if res.MemoryErr != nil {
			t.Fatal(res.MemoryErr)
		}
		return got
	}

	if late, err := open().Late(ctx); err != nil || len(late) != 0 {
		t.Fatalf("a new memory: %v %v, want nobody late", late, err)
	}
	if res := tenantrun.Run(ctx, ids, plan(), slow("a", "c")); res.TimedOut != 2 || res.MemoryErr != nil {
		t.Fatalf("first run %+v", res)
	}
	if late, _ := open().Late(ctx); !slices.Equal(late, []string{"a", "c"}) {
		t.Fatalf("remembered %v, want a and c", late)
	}
	// The run after: a and c last; both ran in time, so the one after that forgets them.
	if got := order(); !slices.Equal(got[2:], []string{"a", "c"}) {
		t.Fatalf("order %v, want a and c last", got)
	}
	if late, _ := open().Late(ctx); len(late) != 0 {
		t.Fatalf("remembered %v after a run in time, want nobody", late)
	}
	// A tenant no longer listed is dropped at the next write.
	tenantrun.Run(ctx, ids, plan(), slow("b", "d"))
	tenantrun.Run(ctx, []string{"a", "b", "c"}, plan(), slow("a"))
	if late, _ := open().Late(ctx); !slices.Equal(late, []string{"a"}) {
		t.Fatalf("remembered %v, want a alone (b ran in time, d is gone)", late)
	}
}

func TestInProcessMemory(t *testing.T) {
	m := &tenantrun.InProcess{}
	runMemoryContract(t, func() tenantrun.Memory { return m })
}

// The deployed memory: one item per job in a table the job writes, read by a new value
// each run as a cold start would; two jobs on one table keep their own.
func TestDynamoMemory(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, tables := e.Tables(t)
		for _, table := range []blueprint.Table{blueprint.Processed, blueprint.Flows, blueprint.FinanceApprovals, blueprint.EmbeddedSessions} {
			t.Run(table.Name, func(t *testing.T) {
				open := func(job string) tenantrun.Memory {
					return tenantrun.Dynamo{DB: db, Table: tables(table.Name), Keys: table, Job: job}
				}
				runMemoryContract(t, func() tenantrun.Memory { return open("job one") })
				other := open("job two")
				if err := other.SetLate(context.Background(), []string{"x"}); err != nil {
					t.Fatal(err)
				}
				if late, _ := open("job one").Late(context.Background()); !slices.Equal(late, []string{"a"}) {
					t.Fatalf("job one reads %v after job two wrote, want its own", late)
				}
			})
		}
	})
}

// A memory that cannot be read leaves the run to go on in its turned order, says so, and
// is not overwritten with what this run alone saw.
func TestMemoryFailureDoesNotStopTheRun(t *testing.T) {
	m := &failingMemory{err: errors.New("throttled")}
	var ran []string
	res := tenantrun.Run(context.Background(), []string{"a", "b"}, tenantrun.Plan{Now: func() time.Time { return t0 }, Memory: m},
		func(_ context.Context, id string) error { ran = append(ran, id); return context.DeadlineExceeded })
	if len(ran) != 2 || res.Ran != 2 || !errors.Is(res.MemoryErr, m.err) || m.writes != 0 {
		t.Fatalf("ran %v, result %+v, %d writes: want both run, the error reported, nothing written", ran, res, m.writes)
	}
}

// A run that changes nothing writes nothing: the memory costs one read a run.
func TestUnchangedMemoryIsNotWritten(t *testing.T) {
	m := &failingMemory{}
	for range 3 {
		tenantrun.Run(context.Background(), []string{"a", "b"}, tenantrun.Plan{Now: func() time.Time { return t0 }, Memory: m},
			func(context.Context, string) error { return nil })
	}
	if m.writes != 0 {
		t.Fatalf("%d writes for three runs in time, want none", m.writes)
	}
}

type failingMemory struct {
	err    error
	late   []string
	writes int
}

func (m *failingMemory) Late(context.Context) ([]string, error) { return m.late, m.err }
func (m *failingMemory) SetLate(_ context.Context, ids []string) error {
	m.writes++
	m.late = ids
	return nil
}
