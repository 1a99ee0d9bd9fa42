package governancetest_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func TestMemoryRecordStoreContract(t *testing.T) {
	governancetest.RunRecordStoreContract(t, func(*testing.T) governance.RecordStore { return &governancetest.Store{} })
}

func TestMemoryLedgerContract(t *testing.T) {
	governancetest.RunLedgerContract(t, func(*testing.T) governance.Ledger { return &governancetest.Ledger{} })
}

func TestMemoryOverrideStoreContract(t *testing.T) {
	governancetest.RunOverrideStoreContract(t, func(*testing.T) governance.OverrideStore { return &governancetest.Overrides{} })
}

func TestMemoryFlapCounterContract(t *testing.T) {
	governancetest.RunFlapCounterContract(t, func(*testing.T) governance.FlapCounter { return &governancetest.Flaps{} })
}
