package dynamostore_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestCreateTablesIsIdempotent(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, _ := e.Clients(t)
		stage := emutest.Stage(t)
		for i := 0; i < 2; i++ {
			if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	})
}
