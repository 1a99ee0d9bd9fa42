package audit_test

import (
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		audittest.RunStoreContract(t, func(t *testing.T) audit.Store {
			db, table := e.Tables(t)
			return audit.NewDynamoStore(db, table(blueprint.TableAudit))
		})
	})
}
