package flow_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// An event of one run stores the run alone; a redelivery, with the same flows or with a
// flow added, answers that run and stores nothing. An event that started no run answers a
// redelivery that now has one with none.
func TestStoreStartsAOneRunEventOnce(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		a := run("t1", "e1", "a", flow.OutcomeRetrying, t0)
		ids, started, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e1", []flow.Run{a})
		if err != nil || !started || fmt.Sprint(ids) != fmt.Sprint([]string{a.ID}) {
			t.Fatalf("first: %v %v %v", ids, started, err)
		}
		for _, again := range [][]flow.Run{{a}, {run("t1", "e1", "c", flow.OutcomeRetrying, t0), a}} {
			got, started, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e1", again)
			if err != nil || started || fmt.Sprint(got) != fmt.Sprint([]string{a.ID}) {
				t.Fatalf("redelivery of %d runs: %v %v %v", len(again), got, started, err)
			}
		}
		if _, err := s.Run(ctx, "t1", flow.RunID("t1", connector.SystemCRM, "e1", "c")); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("the redelivery's new run was stored: %v", err)
		}
		// No run first, one after a flow was added: still the first answer, nothing stored.
		if ids, started, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e2", nil); err != nil || !started || len(ids) != 0 {
			t.Fatalf("no run: %v %v %v", ids, started, err)
		}
		b := run("t1", "e2", "b", flow.OutcomeRetrying, t0)
		if ids, started, err := s.StartRuns(ctx, "t1", connector.SystemCRM, "e2", []flow.Run{b}); err != nil || started || len(ids) != 0 {
			t.Fatalf("redelivery with a run: %v %v %v", ids, started, err)
		}
		if _, err := s.Run(ctx, "t1", b.ID); !errors.Is(err, flow.ErrNotFound) {
			t.Fatalf("the redelivery's run was stored: %v", err)
		}
	})
}

// A StartRuns whose put the SDK sent again after its first was applied (the answer lost)
// started its runs: it is not answered as a duplicate of itself, which would leave the run
// to the redrive and tell a sync-error retry the run "has not ended yet". A real second
// delivery still starts nothing.
func TestStoreStartSentTwiceStarted(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		_, table := e.Tables(t)
		twice := flow.NewDynamoStore(e.SentTwice(t, "PutItem"), table(blueprint.TableFlows))
		one := []flow.Run{run("t1", "e1", "a", flow.OutcomeRetrying, t0)}
		two := []flow.Run{run("t1", "e2", "a", flow.OutcomeRetrying, t0), run("t1", "e2", "b", flow.OutcomeRetrying, t0)}
		for _, runs := range [][]flow.Run{one, two} {
			if _, started, err := twice.StartRuns(ctx, "t1", connector.SystemCRM, runs[0].EventID, runs); err != nil || !started {
				t.Fatalf("%d runs, each put sent twice: started %v, %v", len(runs), started, err)
			}
		}
		for _, runs := range [][]flow.Run{one, two} {
			if _, started, err := twice.StartRuns(ctx, "t1", connector.SystemCRM, runs[0].EventID, runs); err != nil || started {
				t.Fatalf("a second delivery of %d runs: started %v, %v", len(runs), started, err)
			}
		}
	})
}
