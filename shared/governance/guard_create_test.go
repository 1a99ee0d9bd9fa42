package governance_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// TestGuardCreate: a create passes the ownership check like an update (a field another
// system owns is refused), reaches the target as a create, and its ledger entry names the
// id the target gave the record, so a later echo to that record is checked against it.
func TestGuardCreate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	create := governance.WriteRequest{Source: connector.SystemHostERP, Target: connector.SystemCRM, Entity: "Lead",
		Fields: map[string]any{"Description": "Nordwind Handel GmbH"}, IdempotencyKey: "run-1", Reason: "flow.run", Create: true}
	res, err := e.guard.Write(ctx, operator("t1"), create)
	if err != nil || !res.Written.Created || res.Written.Record.ID == "" {
		t.Fatalf("create = %#v, %v; want a created record", res, err)
	}
	id := res.Written.Record.ID
	if w := e.fakes[connector.SystemCRM].Writes(); len(w) != 1 || w[0].ID != id || w[0].IdempotencyKey != "run-1" {
		t.Fatalf("CRM writes = %#v, want the one create", w)
	}
	entries, _ := e.ledger.Recent(ctx, "t1", "Lead", id, t0.Add(-time.Hour))
	if len(entries) != 1 || entries[0].IdempotencyKey != "run-1" {
		t.Fatalf("ledger of the new record = %#v, want the create", entries)
	}
	if a := e.audits(governance.ActionConnectorWrite); len(a) != 1 || a[0].Resource != "crm/Lead/+new" {
		t.Fatalf("audit = %#v, want one write naming the new record", a)
	}

	owned := create
	owned.Source, owned.Target, owned.Entity, owned.IdempotencyKey = connector.SystemCRM, connector.SystemHostERP, "customer", "run-2"
	owned.Fields = map[string]any{"creditLimit": 1}
	if err := e.overrides.PutOverrides(ctx, "t1", []governance.Entry{{Entity: "customer", Field: "creditLimit", Owner: connector.SystemHostERP,
		Policy: governance.PolicyRejectWithAlert}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.guard.Write(ctx, operator("t1"), owned); !errors.Is(err, governance.ErrOwnershipRejected) {
		t.Fatalf("create of an owned field: %v, want it rejected", err)
	}
	if n := e.fakes[connector.SystemHostERP].WriteCount(); n != 0 {
		t.Fatalf("host ERP writes = %d, want none", n)
	}
	bad := create
	bad.RecordID = "001X"
	if _, err := e.guard.Write(ctx, operator("t1"), bad); !errors.Is(err, governance.ErrInvalidRequest) {
		t.Fatalf("create naming a record id: %v, want invalid", err)
	}
}
