package ratebudget_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/ratebudget"
	"github.com/syncassist/syncassist/shared/ratebudget/ratebudgettest"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		store := ratebudget.NewDynamoStore(db, table(blueprint.TableGovernance))
		ratebudgettest.RunStoreContract(t, func(*testing.T) ratebudget.Store { return store })
	})
}
