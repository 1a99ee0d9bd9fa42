package flow_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

// TestDynamoStoreContract runs the store's contract against the flows table on each
// emulator, its reads counted as the budget test counts calls.
func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		flowtest.StoreContract(t, func(t *testing.T) flowtest.StoreHarness {
			_, table := e.Tables(t)
			cfg := e.Config(t)
			calls := &callCounter{calls: map[string]int{}}
			calls.install(&cfg)
			name := table(blueprint.TableFlows)
			return flowtest.StoreHarness{Store: flow.NewDynamoStore(dynamodb.NewFromConfig(cfg), name),
				Twice: flow.NewDynamoStore(e.SentTwice(t, "PutItem"), name), Reads: calls.reads,
				FailingPut: func(id string) flow.Store { return flow.NewDynamoStore(e.Failing(t, "PutItem", id), name) }}
		})
	})
}

// reads is how many reads the counted clients made so far.
func (c *callCounter) reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.calls {
		switch op, _, _ := strings.Cut(k, " "); op {
		case "GetItem", "BatchGetItem", "Query", "Scan":
			n += v
		}
	}
	return n
}

// A run stored before events had keys of their own (a lone run at its flow's id) is read,
// listed, redriven and saved back at its own key next to a run of the new shape.
func TestStoreServesRunsOfTheOldShape(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		old := run("t1", "e1", "f", flow.OutcomeRetrying, t0)
		if err := flow.PutLegacyRun(ctx, s, old); err != nil {
			t.Fatal(err)
		}
		lone := sole(run("t1", "e2", "f", flow.OutcomeRetrying, t0.Add(time.Second)))
		if st, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e2", []flow.Run{lone}); err != nil || !st.New {
			t.Fatalf("start: %+v %v", st, err)
		}
		for _, id := range []string{old.ID, lone.ID} {
			if r, err := s.Run(ctx, "t1", id); err != nil || r.ID != id || r.Outcome != flow.OutcomeRetrying {
				t.Fatalf("Run(%s) = %+v, %v", id, r, err)
			}
		}
		g := &scriptedGuard{results: []guardResult{{}}}
		x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0.Add(time.Hour) }}
		if n, err := x.Redrive(ctx, "t1"); err != nil || n != 2 {
			t.Fatalf("redrive took %d runs, %v; want both shapes", n, err)
		}
		page, _, err := s.Runs(ctx, "t1", flow.RunQuery{Limit: 10})
		if err != nil || len(page) != 2 || page[0].ID != lone.ID || page[1].ID != old.ID {
			t.Fatalf("listed %v %v, want the two runs once each", page, err)
		}
		for _, r := range page {
			if r.Outcome != flow.OutcomeWritten || r.Attempts != 2 {
				t.Fatalf("run %s after the redrive: %s, %d attempts", r.ID, r.Outcome, r.Attempts)
			}
		}
	})
}

// sole is r as the lone run of its event (flow.SoleRun).
func sole(r flow.Run) flow.Run {
	runs := []flow.Run{r}
	flow.SoleRun(r.TenantID, r.System, r.EventID, runs)
	return runs[0]
}
