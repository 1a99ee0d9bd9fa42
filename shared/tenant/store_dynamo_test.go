package tenant_test

import (
	"context"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

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

// A create or an update sent again after its first was applied (the SDK resends when an
// answer is lost) is done, not "exists" (tenantctl would never show the new tenant's
// secrets) or a conflict: as a conflict, Admin.update would apply the change again
// to what it wrote, and a secret rotation would retire its own new secret at once.
// Another writer's update of the same version is still a conflict.
func TestDynamoUpdateSentTwiceIsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := tenant.NewDynamoStore(db, table(blueprint.TableTenants))
		twice := tenant.NewDynamoStore(e.SentTwice(t, "PutItem"), table(blueprint.TableTenants))
		if err := twice.Create(ctx, tenant.Config{ID: "acme"}); err != nil {
			t.Fatalf("a create sent twice: %v", err)
		}
		if err := s.Create(ctx, tenant.Config{ID: "acme"}); !errors.Is(err, tenant.ErrExists) {
			t.Fatalf("a second create: %v, want ErrExists", err)
		}
		c, err := s.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		c.Settings = map[string]string{"note": "one"}
		if err := twice.Update(ctx, c); err != nil {
			t.Fatalf("an update sent twice: %v", err)
		}
		c.Settings["note"] = "two"
		if err := s.Update(ctx, c); !errors.Is(err, tenant.ErrConflict) {
			t.Fatalf("another writer's update of the same version: %v, want ErrConflict", err)
		}
		got, err := s.Get(ctx, "acme")
		if err != nil || got.Version != c.Version+1 || got.Settings["note"] != "one" {
			t.Fatalf("stored version %d note %q (%v), want version %d note one", got.Version, got.Settings["note"], err, c.Version+1)
		}
	})
}
