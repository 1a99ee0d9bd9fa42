package syncerror_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestDynamoClaimsContract(t *testing.T) {
	syncerrortest.RunClaimStoreContract(t, func(t *testing.T) syncerror.ClaimStore {
		db, _ := emutest.Clients(t)
		stage := emutest.Stage(t)
		if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
			t.Fatal(err)
		}
		return syncerror.NewDynamoClaims(db, blueprint.PhysicalName(stage, blueprint.TableProcessed))
	})
}
