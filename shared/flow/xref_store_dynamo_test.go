package flow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
)

// TestDynamoXRefContract runs the cross-reference's contract against the flows table on
// the DynamoDB emulator.
func TestDynamoXRefContract(t *testing.T) {
	flowtest.XRefContract(t, func(t *testing.T) flow.XRefStore { return newStore(t) })
}

// A cross-reference put the SDK sent again after its first was applied (its answer lost)
// is done, not taken by itself: an admin's swap is not answered 409 with its new entry
// stored, nor a take-over refused. Another writer's put on the same condition still is.
func TestDynamoXRefPutSentTwiceIsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := flow.NewDynamoStore(db, table(blueprint.TableFlows))
		twice := flow.NewDynamoStore(e.SentTwice(t, "PutItem"), table(blueprint.TableFlows))
		at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-1"}
		entry := func(id, holder string, state flow.XRefState) flow.XRef {
			return flow.XRef{Source: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: id},
				Target: flow.Ref{System: connector.SystemCRM, Entity: "Account", ID: "001A"}, State: state, Anchor: id,
				ClaimedBy: holder, FlowID: "erp-customer-to-crm", CreatedAt: at, UpdatedAt: at}
		}
		linked := entry(src.ID, "", flow.XRefLinked)
		if err := twice.SwapXRef(ctx, "t1", nil, &linked); err != nil {
			t.Fatalf("a swap sent twice: %v", err)
		}
		if err := s.SwapXRef(ctx, "t1", nil, &linked); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("another swap in where one is: %v, want ErrTaken", err)
		}
		if _, err := s.ClaimXRef(ctx, "t1", entry("C-2", "run-1", flow.XRefPending)); err != nil {
			t.Fatal(err)
		}
		if err := twice.UpdateXRef(ctx, "t1", entry("C-2", "run-2", flow.XRefPending), "run-1"); err != nil {
			t.Fatalf("a take-over sent twice: %v", err)
		}
		if err := s.UpdateXRef(ctx, "t1", entry("C-2", "run-3", flow.XRefPending), "run-1"); !errors.Is(err, flow.ErrTaken) {
			t.Fatalf("the old holder's update after the take-over: %v, want ErrTaken", err)
		}
	})
}
