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

func newGovernance(t *testing.T, e emutest.Emulator) *dynamostore.Governance {
	t.Helper()
	db, _ := e.Clients(t)
	stage := emutest.Stage(t)
	if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
		t.Fatal(err)
	}
	return dynamostore.NewGovernance(db, blueprint.PhysicalName(stage, blueprint.TableGovernance))
}

func TestGovernanceRecordStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunRecordStoreContract(t, func(t *testing.T) governance.RecordStore { return newGovernance(t, e) })
	})
}

func TestGovernanceLedgerContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunLedgerContract(t, func(t *testing.T) governance.Ledger { return newGovernance(t, e) })
	})
}

func TestGovernanceOverrideStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunOverrideStoreContract(t, func(t *testing.T) governance.OverrideStore { return newGovernance(t, e) })
	})
}

func TestGovernanceFlapCounterContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunFlapCounterContract(t, func(t *testing.T) governance.FlapCounter { return newGovernance(t, e) })
	})
}
