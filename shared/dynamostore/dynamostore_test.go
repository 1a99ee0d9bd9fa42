package dynamostore_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestTenantsContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		tenanttest.RunStoreContract(t, func(t *testing.T) tenant.Store {
			db, _ := e.Clients(t)
			stage := emutest.Stage(t)
			if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
				t.Fatal(err)
			}
			return dynamostore.NewTenants(db, blueprint.PhysicalName(stage, blueprint.TableTenants))
		})
	})
}

// Exists answers from the key alone (the projection a KeysOnly grant allows).
func TestTenantsExists(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, _ := e.Clients(t)
		stage := emutest.Stage(t)
		if err := dynamostore.CreateTables(context.Background(), db, stage); err != nil {
			t.Fatal(err)
		}
		s := dynamostore.NewTenants(db, blueprint.PhysicalName(stage, blueprint.TableTenants))
		if err := s.Create(context.Background(), tenant.Config{ID: "acme"}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]bool{"acme": true, "globex": false} {
			if got, err := s.Exists(context.Background(), id); err != nil || got != want {
				t.Errorf("Exists(%s) = %v, %v; want %v", id, got, err, want)
			}
		}
	})
}

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
