package dynamostore_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func newGovernance(t *testing.T) *dynamostore.Governance {
	t.Helper()
	db, _ := emutest.Clients(t)
	stage := emutest.Stage(t)
	if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
		t.Fatal(err)
	}
	return dynamostore.NewGovernance(db, blueprint.PhysicalName(stage, blueprint.TableGovernance))
}

func TestGovernanceRecordStoreContract(t *testing.T) {
	governancetest.RunRecordStoreContract(t, func(t *testing.T) governance.RecordStore { return newGovernance(t) })
}

func TestGovernanceLedgerContract(t *testing.T) {
	governancetest.RunLedgerContract(t, func(t *testing.T) governance.Ledger { return newGovernance(t) })
}

func TestGovernanceOverrideStoreContract(t *testing.T) {
	governancetest.RunOverrideStoreContract(t, func(t *testing.T) governance.OverrideStore { return newGovernance(t) })
}

func TestGovernanceFlapCounterContract(t *testing.T) {
	governancetest.RunFlapCounterContract(t, func(t *testing.T) governance.FlapCounter { return newGovernance(t) })
}
