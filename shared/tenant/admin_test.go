package tenant_test

import (
	"context"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

func TestAdminCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("fresh secret, flags off", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		secret, err := createWith(admin, ctx, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		if k, err := webhook.ParseSecret(secret); err != nil || len(k) != 32 {
			t.Fatalf("secret %q: %d-byte key, %v", secret, len(k), err)
		}
		got, err := store.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		// One secret per purpose, each its own: the flow sources' included.
		seen := map[string]tenant.Purpose{}
		for _, p := range tenant.Purposes {
			s := *got.Secrets(p)
			if len(s) != 1 || s[0].CreatedAt != now {
				t.Fatalf("%s secrets %+v, want one made now", p, s)
			}
			if other, dup := seen[s[0].Value]; dup {
				t.Fatalf("%s and %s share a secret", other, p)
			}
			seen[s[0].Value] = p
		}
		want := tenant.Config{
			ID:              "acme",
			Settings:        map[string]string{tenant.KeyEnabled: "false", tenant.KeyWebhookEnabled: "false"},
			WebhookSecrets:  []tenant.Secret{{Value: secret, CreatedAt: now}},
			FinanceSecrets:  got.FinanceSecrets,
			EmbeddedSecrets: got.EmbeddedSecrets,
			FlowSecrets:     got.FlowSecrets,
			CreatedAt:       now,
			UpdatedAt:       now,
			Version:         got.Version,
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stored %+v\nwant %+v", got, want)
		}
		if got.FeatureEnabled() {
			t.Fatal("a new tenant must start with the feature off")
		}
		other, err := createWith(admin, ctx, "globex", "")
		if err != nil {
			t.Fatal(err)
		}
		if other == secret {
			t.Fatal("two tenants got the same secret")
		}
	})

	t.Run("given secret", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		secret, err := createWith(admin, ctx, "acme", secretA)
		if err != nil || secret != secretA {
			t.Fatalf("Create = %q, %v; want %q", secret, err, secretA)
		}
		got, _ := store.Get(ctx, "acme")
		if len(got.WebhookSecrets) != 1 || got.WebhookSecrets[0].Value != secretA {
			t.Fatalf("secrets = %+v", got.WebhookSecrets)
		}
	})

	t.Run("clock converted to UTC", func(t *testing.T) {
		t.Parallel()
		store := tenanttest.NewStore()
		zone := time.FixedZone("UTC+2", 2*60*60)
		admin := tenant.Admin{Store: store, Now: func() time.Time { return now.In(zone) }}
		if _, err := createWith(admin, ctx, "acme", ""); err != nil {
			t.Fatal(err)
		}
		got, _ := store.Get(ctx, "acme")
		if got.CreatedAt.Location() != time.UTC || !got.CreatedAt.Equal(now) {
			t.Fatalf("CreatedAt = %v, want %v in UTC", got.CreatedAt, now)
		}
	})

	t.Run("wall clock when Now is nil", func(t *testing.T) {
		t.Parallel()
		store := tenanttest.NewStore()
		before := time.Now()
		if _, err := createWith(tenant.Admin{Store: store}, ctx, "acme", ""); err != nil {
			t.Fatal(err)
		}
		got, _ := store.Get(ctx, "acme")
		if got.CreatedAt.Before(before.Add(-time.Second)) || got.CreatedAt.After(time.Now().Add(time.Second)) || got.CreatedAt.Location() != time.UTC {
			t.Fatalf("CreatedAt = %v, want about %v in UTC", got.CreatedAt, before)
		}
	})

	t.Run("duplicate", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		first, err := createWith(admin, ctx, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		secret, err := createWith(admin, ctx, "acme", "")
		if !errors.Is(err, tenant.ErrExists) || secret != "" {
			t.Fatalf("second Create = %q, %v; want ErrExists and no secret", secret, err)
		}
		got, _ := store.Get(ctx, "acme")
		if len(got.WebhookSecrets) != 1 || got.WebhookSecrets[0].Value != first {
			t.Fatalf("duplicate Create changed the tenant: %+v", got)
		}
	})

	for _, tt := range []struct{ name, id, secret string }{
		{"empty id", "", ""},
		{"upper-case id", "Acme", ""},
		{"id with space", "acme corp", ""},
		{"id too long", strings.Repeat("a", 64), ""},
		{"id starting with dash", "-acme", ""},
		{"secret without prefix", "acme", strings.TrimPrefix(secretA, "whsec_")},
		{"secret with bad base64", "acme", "whsec_***"},
		{"secret too short", "acme", "whsec_" + base64.StdEncoding.EncodeToString([]byte("short"))},
	} {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store, _ := newAdmin()
			secret, err := createWith(admin, ctx, tt.id, tt.secret)
			if err == nil || secret != "" {
				t.Fatalf("Create(%q, %q) = %q, %v; want an error", tt.id, tt.secret, secret, err)
			}
			if errors.Is(err, tenant.ErrExists) {
				t.Fatalf("err = %v, must not be ErrExists", err)
			}
			if tt.secret != "" && !errors.Is(err, webhook.ErrInvalidSecret) {
				t.Errorf("err = %v, want it to wrap webhook.ErrInvalidSecret", err)
			}
			if cs, _ := store.List(ctx); len(cs) != 0 {
				t.Fatalf("refused Create stored %+v", cs)
			}
		})
	}
}

func TestAdminSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name    string
		id      string
		key     string
		value   string
		wantErr error // nil with refuse=false means success
		refuse  bool  // an error that is not a sentinel
	}{
		{"enable", "acme", tenant.KeyEnabled, "true", nil, false},
		{"webhook enable", "acme", tenant.KeyWebhookEnabled, "true", nil, false},
		{"any string is stored", "acme", tenant.KeyEnabled, "TRUE", nil, false},
		{"disable", "acme", tenant.KeyEnabled, "false", nil, false},
		{"unknown key", "acme", "sync_error_assist.enabeld", "true", nil, true},
		{"empty key", "acme", "", "true", nil, true},
		{"key differs in case", "acme", strings.ToUpper(tenant.KeyEnabled), "true", nil, true},
		{"unknown tenant", "nobody", tenant.KeyEnabled, "true", tenant.ErrNotFound, false},
		{"frame origins", "acme", tenant.KeyEmbeddedAllowedOrigins, "https://erp.example.com http://localhost:5173", nil, false},
		{"a frame origin with a path", "acme", tenant.KeyEmbeddedAllowedOrigins, "https://erp.example.com/app", nil, true},
		{"a wildcard frame origin", "acme", tenant.KeyEmbeddedAllowedOrigins, "https://*.example.com", nil, true},
		{"confirmation amount", "acme", tenant.KeyFinanceConfirmAbove, "25000.50", nil, false},
		{"a negative confirmation amount", "acme", tenant.KeyFinanceConfirmAbove, "-5", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store, clk := newAdmin()
			if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
				t.Fatal(err)
			}
			before, _ := store.Get(ctx, "acme")
			clk.t = now.Add(time.Minute)
			err := admin.Set(ctx, tt.id, tt.key, tt.value)
			after, _ := store.Get(ctx, "acme")
			switch {
			case tt.refuse || tt.wantErr != nil:
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("Set = %v, want error %v", err, tt.wantErr)
				}
				if !reflect.DeepEqual(after, before) {
					t.Fatalf("refused Set changed the tenant:\n%+v\nwas\n%+v", after, before)
				}
			default:
				if err != nil {
					t.Fatalf("Set = %v", err)
				}
				if after.Settings[tt.key] != tt.value || after.Version != before.Version+1 || !after.UpdatedAt.Equal(clk.t) {
					t.Fatalf("after Set: %+v", after)
				}
				if !reflect.DeepEqual(after.WebhookSecrets, before.WebhookSecrets) || !after.CreatedAt.Equal(before.CreatedAt) {
					t.Fatalf("Set touched other fields: %+v", after)
				}
			}
		})
	}
}

func TestAdminRotateSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("unknown tenant", func(t *testing.T) {
		t.Parallel()
		admin, _, _ := newAdmin()
		secret, err := admin.RotateSecret(ctx, "nobody", tenant.PurposeIngest, "", time.Hour)
		if !errors.Is(err, tenant.ErrNotFound) || secret != "" {
			t.Fatalf("RotateSecret = %q, %v; want ErrNotFound", secret, err)
		}
	})

	t.Run("invalid given secret", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
			t.Fatal(err)
		}
		before, _ := store.Get(ctx, "acme")
		if _, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, "whsec_nope", time.Hour); !errors.Is(err, webhook.ErrInvalidSecret) {
			t.Fatalf("RotateSecret = %v, want ErrInvalidSecret", err)
		}
		if after, _ := store.Get(ctx, "acme"); !reflect.DeepEqual(after, before) {
			t.Fatalf("refused rotation changed the tenant: %+v", after)
		}
	})

	t.Run("given secret", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
			t.Fatal(err)
		}
		got, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, secretB, time.Hour)
		if err != nil || got != secretB {
			t.Fatalf("RotateSecret = %q, %v", got, err)
		}
		c, _ := store.Get(ctx, "acme")
		want := []tenant.Secret{{Value: secretB, CreatedAt: now}, {Value: secretA, CreatedAt: now, RetireAt: now.Add(time.Hour)}}
		if !reflect.DeepEqual(c.WebhookSecrets, want) {
			t.Fatalf("secrets = %+v, want %+v", c.WebhookSecrets, want)
		}
	})

	t.Run("two rotations: only the newest two verify", func(t *testing.T) {
		t.Parallel()
		admin, store, clk := newAdmin()
		first, err := createWith(admin, ctx, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		clk.t = now.Add(time.Minute)
		second, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, "", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		clk.t = now.Add(2 * time.Minute)
		third, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, "", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if first == second || second == third || first == third {
			t.Fatal("rotation returned a secret already in use")
		}
		c, err := store.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if len(c.WebhookSecrets) != 2 {
			t.Fatalf("stored %d secrets, want 2: %+v", len(c.WebhookSecrets), c.WebhookSecrets)
		}
		body := []byte(`{"tenantId":"acme"}`)
		v := webhook.Verifier{Now: clk.Now}
		check := func(at time.Time, secret string, want error) {
			t.Helper()
			h := webhook.Sign(mustKey(t, secret), "msg_1", clk.t, body)
			if err := v.Verify(h, body, c.ActiveKeys(string(tenant.PurposeIngest), at)); !errors.Is(err, want) || (want == nil && err != nil) {
				t.Errorf("at %v, secret %.12s...: Verify = %v, want %v", at, secret, err, want)
			}
		}
		check(clk.t, third, nil)
		check(clk.t, second, nil)
		check(clk.t, first, webhook.ErrInvalidSignature)
		// Once the grace period is over only the newest verifies.
		later := clk.t.Add(time.Hour)
		clk.t = later
		check(later, third, nil)
		check(later, second, webhook.ErrInvalidSignature)
		check(later, first, webhook.ErrInvalidSignature)
	})

	t.Run("grace zero retires the old secret at once", func(t *testing.T) {
		t.Parallel()
		admin, store, _ := newAdmin()
		if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, secretB, 0); err != nil {
			t.Fatal(err)
		}
		c, _ := store.Get(ctx, "acme")
		if keys := c.ActiveKeys(string(tenant.PurposeIngest), now); len(keys) != 1 || string(keys[0]) != string(mustKey(t, secretB)) {
			t.Fatalf("active keys = %q, want only secretB's", keys)
		}
	})
}

// racingStore makes the first races Updates lose to a concurrent writer, which turns on
// the webhook flag in between Admin's read and write.
type racingStore struct {
	*tenanttest.Store
	races   int
	updates int
}

func (s *racingStore) Update(ctx context.Context, c tenant.Config) error {
	s.updates++
	if s.races > 0 {
		s.races--
		cur, err := s.Store.Get(ctx, c.ID)
		if err != nil {
			return err
		}
		cur.Settings[tenant.KeyWebhookEnabled] = "true"
		if err := s.Store.Update(ctx, cur); err != nil {
			return err
		}
	}
	return s.Store.Update(ctx, c)
}

func TestAdminRetriesOnConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name        string
		races       int
		wantErr     error
		wantUpdates int
	}{
		{"no race", 0, nil, 1},
		{"one lost race", 1, nil, 2},
		{"four lost races", 4, nil, 5},
		{"gives up after five attempts", 5, tenant.ErrConflict, 5},
		{"gives up, more races pending", 50, tenant.ErrConflict, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &racingStore{Store: tenanttest.NewStore()}
			admin := tenant.Admin{Store: store, Now: func() time.Time { return now }}
			if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
				t.Fatal(err)
			}
			store.races = tt.races
			err := admin.Set(ctx, "acme", tenant.KeyEnabled, "true")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Set = %v, want %v", err, tt.wantErr)
			}
			if store.updates != tt.wantUpdates {
				t.Errorf("%d Update calls, want %d", store.updates, tt.wantUpdates)
			}
			c, _ := store.Get(ctx, "acme")
			if tt.wantErr == nil {
				// The retry re-read the tenant: the concurrent writer's change survives.
				if c.Settings[tenant.KeyEnabled] != "true" || (tt.races > 0 && !c.FeatureEnabled()) {
					t.Fatalf("settings after retried Set = %v", c.Settings)
				}
			} else if c.Settings[tenant.KeyEnabled] != "false" {
				t.Fatalf("a failed Set was written: %v", c.Settings)
			}
		})
	}

	t.Run("rotation retried keeps exactly two secrets", func(t *testing.T) {
		t.Parallel()
		store := &racingStore{Store: tenanttest.NewStore()}
		admin := tenant.Admin{Store: store, Now: func() time.Time { return now }}
		if _, err := createWith(admin, ctx, "acme", secretA); err != nil {
			t.Fatal(err)
		}
		store.races = 2
		if _, err := admin.RotateSecret(ctx, "acme", tenant.PurposeIngest, secretB, time.Hour); err != nil {
			t.Fatal(err)
		}
		c, _ := store.Get(ctx, "acme")
		want := []tenant.Secret{{Value: secretB, CreatedAt: now}, {Value: secretA, CreatedAt: now, RetireAt: now.Add(time.Hour)}}
		if !reflect.DeepEqual(c.WebhookSecrets, want) || !c.Flag(tenant.KeyWebhookEnabled) {
			t.Fatalf("after retried rotation: %+v", c)
		}
	})
}

// createWith creates tenant id with secret (empty: fresh) as its ingest secret and returns
// that secret.
func createWith(a tenant.Admin, ctx context.Context, id, secret string) (string, error) {
	s, err := a.Create(ctx, id, map[tenant.Purpose]string{tenant.PurposeIngest: secret})
	return s[tenant.PurposeIngest], err
}
