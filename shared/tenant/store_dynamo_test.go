package tenant_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func newDynamoStore(t *testing.T, e emutest.Emulator) *tenant.DynamoStore {
	t.Helper()
	db, table := e.Tables(t)
	return tenant.NewDynamoStore(db, table(blueprint.TableTenants))
}

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		tenanttest.RunStoreContract(t, func(t *testing.T) tenant.Store { return newDynamoStore(t, e) })
	})
}

// Exists answers from the key alone (the projection a KeysOnly grant allows).
func TestDynamoStoreExists(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s := newDynamoStore(t, e)
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
