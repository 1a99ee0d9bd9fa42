package tenanttest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/tenant"
)

// RunStoreContract runs the cases every tenant.Store must pass; newStore returns an empty
// store for each case, its own: the cases run side by side (t.Parallel).
func RunStoreContract(t *testing.T, newStore func(t *testing.T) tenant.Store) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	sample := func(id string) tenant.Config {
		return tenant.Config{
			ID:       id,
			Settings: map[string]string{tenant.KeyEnabled: "true", tenant.KeyWebhookEnabled: "false"},
			WebhookSecrets: []tenant.Secret{
				{Value: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: now},
				{Value: "whsec_c2Vjb25kLXNlY3JldC1mb3ItdGVzdHM=", CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(time.Hour)},
			},
			// A flow source's secrets round-trip like the host's (index 2: crm).
			FlowSecrets: [len(tenant.FlowSources)][]tenant.Secret{2: {{Value: "whsec_Y3JtLWZsb3ctc2VjcmV0LWZvci10ZXN0cw==", CreatedAt: now}}},
			Connectors: map[string]tenant.Connector{"hosterp": {BaseURL: "https://erp.example.com/api", Token: "client:tok",
				TokenURL: "https://erp.example.com/services/rest/auth/oauth2/v1/token", Scope: "rest_webservices"}},
			// The tenant's own system names round-trip as written.
			SystemAliases: map[string]string{"Business Central EU": "erp2", "Our Webshop": "marketing"},
			CreatedAt:     now,
			UpdatedAt:     now,
		}
	}

	t.Run("create then get", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		want := sample("acme")
		if err := s.Create(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		want.Version = got.Version
		if got.Version < 1 || !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
		if err := s.Create(ctx, sample("acme")); !errors.Is(err, tenant.ErrExists) {
			t.Fatalf("second create: err=%v, want ErrExists", err)
		}
	})

	t.Run("unknown tenant", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if _, err := s.Get(ctx, "nobody"); !errors.Is(err, tenant.ErrNotFound) {
			t.Fatalf("get: err=%v", err)
		}
		c := sample("nobody")
		c.Version = 1
		if err := s.Update(ctx, c); !errors.Is(err, tenant.ErrNotFound) {
			t.Fatalf("update: err=%v", err)
		}
	})

	t.Run("update is optimistic", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, sample("acme")); err != nil {
			t.Fatal(err)
		}
		c, err := s.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := 0; i < 10; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := c
				mine.Settings = map[string]string{tenant.KeyEnabled: "true", tenant.KeyWebhookEnabled: "true"}
				err := s.Update(ctx, mine)
				switch {
				case err == nil:
					mu.Lock()
					won++
					mu.Unlock()
				case !errors.Is(err, tenant.ErrConflict):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d updates won, want 1", won)
		}
		got, err := s.Get(ctx, "acme")
		if err != nil || !got.FeatureEnabled() || got.Version != c.Version+1 {
			t.Fatalf("after update: %+v err=%v", got, err)
		}
	})

	t.Run("list", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, id := range []string{"b", "a", "c"} {
			if err := s.Create(ctx, sample(id)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if !reflect.DeepEqual(ids, []string{"a", "b", "c"}) {
			t.Fatalf("list = %v", ids)
		}
	})
}
