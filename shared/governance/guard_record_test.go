package governance_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
)

// dynamoCalls counts a client's DynamoDB operations by name.
type dynamoCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *dynamoCalls) install(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, emutest.Observe(func(in, _ any) {
		_, op := emutest.OpName(in)
		c.mu.Lock()
		c.n[op]++
		c.mu.Unlock()
	}))
}

func (c *dynamoCalls) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.n
	c.n = map[string]int{}
	return out
}

// withDynamo puts the guard's ledger and audit log on the emulator's governance and
// audit tables, as the wiring does, its calls counted.
func withDynamo(t *testing.T, calls *dynamoCalls, auditStore **audit.DynamoStore) envOption {
	cfg := emutest.Config(t)
	calls.install(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	stage := emutest.Stage(t)
	if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
		t.Fatal(err)
	}
	*auditStore = audit.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableAudit))
	return func(deps *governance.Deps, _ *configs) {
		deps.Ledger = governance.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableGovernance))
		deps.Audit = &audit.Log{Store: *auditStore, Redactor: redactor{dlp.NewScanner()}, Now: deps.Now}
	}
}

// A write that went through stores its audit records (the scan's findings and the write)
// in its ledger entry's BatchWriteItem, and the audit log's readers find them as records
// written one by one: by tenant and time, and by action type (the index). A write refused
// after its scan still stores the scan's record.
func TestGuardStoresAWritesAuditRecordsWithItsLedgerEntry(t *testing.T) {
	calls := &dynamoCalls{n: map[string]int{}}
	var store *audit.DynamoStore
	e := newEnv(t, withDynamo(t, calls, &store), withNotConfigured(connector.SystemMarketing))
	ctx := context.Background()
	calls.take()
	fields := map[string]any{"email": "jane@example.com"}
	if _, err := e.write(operator("t1"), req(crm, crm, "contact", "C-1", fields)); err != nil {
		t.Fatal(err)
	}
	if got := calls.take(); got["PutItem"] != 0 || got["BatchWriteItem"] != 1 {
		t.Errorf("the write's records took %v, want one BatchWriteItem and no PutItem", got)
	}
	keys := func(actionType string) []string {
		t.Helper()
		p, err := store.Query(ctx, audit.Query{TenantID: "t1", From: t0.Add(-time.Hour), To: t0.Add(time.Hour),
			ActionType: actionType, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range p.Records {
			out = append(out, r.ActionKey+" "+r.Result)
		}
		slices.Sort(out) // the clock stands still: the records share their time
		return out
	}
	if got := fmt.Sprint(keys("")); got != "[connector.write success dlp.scan success]" {
		t.Errorf("the tenant's records: %s", got)
	}
	if got := fmt.Sprint(keys(audit.TypeDLP)); got != "[dlp.scan success]" {
		t.Errorf("the dlp records: %s", got)
	}
	_, err := e.write(operator("t1"), req(connector.SystemMarketing, connector.SystemMarketing, "member", "M-1", fields))
	if err == nil {
		t.Fatal("a write to a system without a connector went through")
	}
	if got := fmt.Sprint(keys(audit.TypeDLP)); got != "[dlp.scan success dlp.scan success]" {
		t.Errorf("the dlp records after a refused write: %s", got)
	}
}
