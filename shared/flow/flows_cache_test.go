package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// countingFlows counts the reads of a tenant's flows.
type countingFlows struct {
	*flow.DynamoStore
	reads int
}

func (c *countingFlows) Flows(ctx context.Context, tenantID string) ([]flow.Flow, error) {
	c.reads++
	return c.DynamoStore.Flows(ctx, tenantID)
}

// The executor's flows are read once per TTL; a flow put or deleted in this process, by
// any store on the table, is seen at once; one changed by another process after TTL.
func TestCachedFlowsReadsOncePerTTLAndSeesChanges(t *testing.T) {
	ctx := context.Background()
	db, table := emutest.Pair.Tables(t)
	raw, other := flow.NewDynamoStore(db, table(blueprint.TableFlows)), flow.NewDynamoStore(db, table(blueprint.TableFlows))
	store := &countingFlows{DynamoStore: raw}
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	c := flow.NewCachedFlows(store, 10*time.Second, func() time.Time { return now })
	f := flow.Flow{ID: "f1", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Mapping: map[string]string{"Phone": "phone"}}
	if err := raw.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		flows, err := c.Flows(ctx, "t1")
		if err != nil {
			t.Fatal(err)
		}
		return len(flows)
	}
	for range 3 {
		if n := count(); n != 1 {
			t.Fatalf("%d flows", n)
		}
	}
	if store.reads != 1 {
		t.Fatalf("%d reads for 3 within the TTL, want 1", store.reads)
	}
	// Another store of this process (the settings routes') adds a flow: seen at once.
	f.ID = "f2"
	if err := other.PutFlow(ctx, "t1", f); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d flows after a put in this process, want 2", n)
	}
	if err := raw.DeleteFlow(ctx, "t1", "f2"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d flows after a delete in this process, want 1", n)
	}
}
