package governance_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// The sweeps (finance's lease sweep, the sync-error reconcile's ledgerWrites.Applied) ask
// Wrote under the entity and record id they wrote, not naming the system: a write with
// Mailchimp on either side must be found there, on the memory ledger and on DynamoDB.
// Not finding it, the sync-error sweep reads the record back, and a fix on a record that
// changed since is judged not written and reverted or written again.
func TestWroteFindsWritesWithMarketingOnEitherSide(t *testing.T) {
	backends := map[string]func(t *testing.T) (envOption, func() governance.Ledger){
		"memory": func(*testing.T) (envOption, func() governance.Ledger) { return nil, nil },
		"dynamodb": func(t *testing.T) (envOption, func() governance.Ledger) {
			var store *audit.DynamoStore
			var ledger governance.Ledger
			dynamo := withDynamo(t, &dynamoCalls{n: map[string]int{}}, &store)
			return func(deps *governance.Deps, c *configs) {
				dynamo(deps, c)
				ledger = deps.Ledger
			}, func() governance.Ledger { return ledger }
		},
	}
	upsert := req(crm, marketing, "member", "Jane.Doe@example.com", map[string]any{"note": "vip"})
	upsert.UpsertKey = "email_address"
	for backend, setup := range backends {
		for _, tc := range []struct {
			name string
			r    governance.WriteRequest
		}{
			{"Mailchimp to the CRM, by the CRM's id", req(marketing, crm, "lead", "00Q5g00000AbCdE", map[string]any{"reviewNote": "x"})},
			{"the CRM to a Mailchimp member, by address", req(crm, marketing, "member", "jane@example.com", map[string]any{"reviewNote": "x"})},
			{"an upsert of a Mailchimp member, by address", upsert},
			{"the host ERP to the CRM", req(hosterp, crm, "lead", "00Q5g00000AbCdE", map[string]any{"reviewNote": "x"})},
		} {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var opts []envOption
				opt, ledger := setup(t)
				if opt != nil {
					opts = append(opts, opt)
				}
				e := newEnv(t, opts...)
				if ledger == nil {
					ledger = func() governance.Ledger { return e.ledger }
				}
				write := e.write
				if tc.r.UpsertKey != "" {
					write = func(id identity.Identity, r governance.WriteRequest) (governance.Result, error) {
						return e.guard.Write(context.Background(), id, r) // creates its member
					}
				}
				if _, err := write(operator("t1"), tc.r); err != nil {
					t.Fatalf("write: %v", err)
				}
				found, err := governance.Wrote(context.Background(), ledger(), "t1", tc.r.Entity, tc.r.RecordID, t0.Add(-time.Hour), tc.r.IdempotencyKey)
				if err != nil || !found {
					t.Fatalf("Wrote(%s/%s, %s) = %v, %v: the write is in the ledger but not found",
						tc.r.Entity, tc.r.RecordID, tc.r.IdempotencyKey, found, err)
				}
				if found, err := governance.Wrote(context.Background(), ledger(), "t1", tc.r.Entity, tc.r.RecordID, t0.Add(-time.Hour), "other"); err != nil || found {
					t.Fatalf("Wrote under another key = %v, %v; want false", found, err)
				}
			})
		}
	}
}

// A write from Mailchimp that the guard stored while both legs of a Mailchimp write were
// keyed by subscriber hash (the entry lives a day) is found under the id it wrote.
func TestWroteFindsWritesFromMarketingStoredUnderTheHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := &governancetest.Ledger{}
	e := governance.LedgerEntry{ID: "l-1", Time: t0, Tenant: "t1", Source: marketing, Target: crm, Entity: "lead",
		RecordID: connector.SubscriberHash("00Q5g00000AbCdE"), Fields: []string{"reviewNote"}, PayloadHash: "h", IdempotencyKey: "fix-1"}
	if err := l.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	if found, err := governance.Wrote(ctx, l, "t1", "lead", "00Q5g00000AbCdE", t0, "fix-1"); err != nil || !found {
		t.Fatalf("Wrote = %v, %v; want true", found, err)
	}
}
