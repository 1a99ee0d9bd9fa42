package tenant_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/tenant"
)

// withEverySecret is a tenant holding a secret of every purpose and a connector token.
func withEverySecret() tenant.Config {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := tenant.Config{ID: "acme", CreatedAt: at, UpdatedAt: at, Settings: map[string]string{"flag": "true"},
		Connectors:    map[string]tenant.Connector{"erp2": {BaseURL: "https://erp.example", Token: "tok"}},
		SystemAliases: map[string]string{"BC Cloud": "erp2"}}
	for _, p := range tenant.Purposes {
		*c.Secrets(p) = []tenant.Secret{{Value: "secret-of-" + string(p), CreatedAt: at}}
	}
	return c
}

// Each function's reader fetches the settings and the secrets of the purposes it serves
// (blueprint Opens, which its key grant is conditioned on), and nothing of another purpose.
func TestReaderForFetchesOnlyItsPurposes(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s := newDynamoStore(t, e)
		if err := s.Create(ctx, withEverySecret()); err != nil {
			t.Fatal(err)
		}
		for _, f := range blueprint.Functions {
			var serves []tenant.Purpose
			for _, p := range f.Opens() {
				serves = append(serves, tenant.Purpose(p))
			}
			got, err := s.ReaderFor(serves...).Get(ctx, "acme")
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if got.Settings["flag"] != "true" || got.Version != 1 || got.CreatedAt.IsZero() {
				t.Errorf("%s: plain attributes not read: %+v", f.Name, got)
			}
			// The system aliases are plain: every function resolving system names reads them.
			if got.SystemAliases["BC Cloud"] != "erp2" {
				t.Errorf("%s: system aliases not read: %v", f.Name, got.SystemAliases)
			}
			for _, p := range tenant.Purposes {
				secrets := *got.Secrets(p)
				if want := contains(serves, p); want != (len(secrets) == 1 && secrets[0].Value == "secret-of-"+string(p)) {
					t.Errorf("%s (serves %v): %s secrets read = %v", f.Name, serves, p, secrets)
				}
			}
			if want := contains(serves, tenant.PurposeConnectors); want != (got.Connectors["erp2"].Token == "tok") {
				t.Errorf("%s (serves %v): connectors read = %v", f.Name, serves, got.Connectors)
			}
		}
		// The all-tenant jobs list settings alone: no purpose's secret, no connector.
		all, err := s.ReaderFor().List(ctx)
		if err != nil || len(all) != 1 || all[0].ID != "acme" || all[0].Settings["flag"] != "true" || all[0].Connectors != nil {
			t.Fatalf("list: %+v, %v", all, err)
		}
		for _, p := range tenant.Purposes {
			if secrets := *all[0].Secrets(p); len(secrets) != 0 {
				t.Errorf("list read %s secrets %v", p, secrets)
			}
		}
		if _, err := s.ReaderFor(tenant.PurposeIngest).Get(ctx, "globex"); err != tenant.ErrNotFound {
			t.Errorf("unknown tenant: %v, want ErrNotFound", err)
		}
	})
}

func contains(ps []tenant.Purpose, p tenant.Purpose) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
