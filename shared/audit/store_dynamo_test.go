package audit_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		audittest.RunStoreContract(t, func(t *testing.T) audit.Store {
			db, _ := e.Clients(t)
			stage := emutest.Stage(t)
			if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
				t.Fatal(err)
			}
			return audit.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableAudit))
		})
	})
}
