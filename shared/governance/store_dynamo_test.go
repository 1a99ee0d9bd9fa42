package governance_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func newDynamoStore(t *testing.T, e emutest.Emulator) *governance.DynamoStore {
	t.Helper()
	db, table := e.Tables(t)
	return governance.NewDynamoStore(db, table(blueprint.TableGovernance))
}

func TestDynamoRecordStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunRecordStoreContract(t, func(t *testing.T) governance.RecordStore { return newDynamoStore(t, e) })
	})
}

func TestDynamoLedgerContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunLedgerContract(t, func(t *testing.T) governance.Ledger { return newDynamoStore(t, e) })
	})
}

func TestDynamoOverrideStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunOverrideStoreContract(t, func(t *testing.T) governance.OverrideStore { return newDynamoStore(t, e) })
	})
}

func TestDynamoFlapCounterContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunFlapCounterContract(t, func(t *testing.T) governance.FlapCounter { return newDynamoStore(t, e) })
	})
}
