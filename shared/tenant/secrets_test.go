package tenant_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func newSealer(t *testing.T) *sealed.Sealer {
	t.Helper()
	w, err := sealed.ParseLocalKey(sealed.NewLocalKey())
	if err != nil {
		t.Fatal(err)
	}
	return &sealed.Sealer{Wrapper: w}
}

// A secret sealed for one purpose opens under that purpose only: a function whose key
// grant is conditioned on its purposes cannot use another purpose's context to open it.
func TestASecretSealedForOnePurposeDoesNotOpenUnderAnother(t *testing.T) {
	ctx, k := context.Background(), newSealer(t)
	c := tenant.Config{ID: "acme", Connectors: map[string]tenant.Connector{"crm": {BaseURL: "https://crm.example.com", Token: "crm-token"}}}
	for i, p := range tenant.Purposes {
		*c.Secrets(p) = []tenant.Secret{{Value: secretA[:len(secretA)-2] + string(rune('A'+i)) + "="}}
	}
	stored, err := c.Sealed(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(tenant.Purposes, tenant.PurposeConnectors) {
		sealedValue, plain := stored.Connectors["crm"].Token, c.Connectors["crm"].Token
		if p != tenant.PurposeConnectors {
			sealedValue, plain = (*stored.Secrets(p))[0].Value, (*c.Secrets(p))[0].Value
		}
		if got, err := k.Open(ctx, sealedValue, stored.EncryptionContext(p)); err != nil || got != plain {
			t.Fatalf("%s: opens as %q, %v", p, got, err)
		}
		for _, other := range append(tenant.Purposes, tenant.PurposeConnectors) {
			if other == p {
				continue
			}
			if _, err := k.Open(ctx, sealedValue, stored.EncryptionContext(other)); err == nil {
				t.Fatalf("a %s secret opened as %s", p, other)
			}
		}
		if _, err := k.Open(ctx, sealedValue, map[string]string{"tenant_id": "acme"}); err == nil {
			t.Fatalf("a %s secret opened without its purpose", p)
		}
	}

	// OpenedFor opens its purposes and leaves the rest sealed.
	ingest, err := stored.OpenedFor(ctx, k, tenant.PurposeIngest)
	if err != nil {
		t.Fatal(err)
	}
	if ingest.WebhookSecrets[0].Value != c.WebhookSecrets[0].Value || !sealed.Sealed(ingest.FinanceSecrets[0].Value) ||
		!sealed.Sealed(ingest.Connectors["crm"].Token) || !sealed.Sealed((*ingest.Secrets(tenant.FlowPurpose("crm")))[0].Value) {
		t.Fatalf("OpenedFor(ingest) = %+v", ingest)
	}
	if tok, err := stored.OpenedToken(ctx, k, "crm"); err != nil || tok != "crm-token" {
		t.Fatalf("token %q %v", tok, err)
	}
}

// Values sealed before purposes had contexts of their own (the tenant id alone) still open,
// and Reseal seals them again under their purposes.
func TestLegacySealedValuesOpenAndAreResealed(t *testing.T) {
	ctx, k := context.Background(), newSealer(t)
	legacy := map[string]string{"tenant_id": "acme"}
	old, err := k.Seal(ctx, secretA, legacy)
	if err != nil {
		t.Fatal(err)
	}
	oldToken, _ := k.Seal(ctx, "crm-token", legacy)
	c := tenant.Config{ID: "acme", WebhookSecrets: []tenant.Secret{{Value: old}},
		Connectors: map[string]tenant.Connector{"crm": {BaseURL: "https://crm.example.com", Token: oldToken}}}
	if opened, err := c.OpenedFor(ctx, k, tenant.PurposeIngest); err != nil || opened.WebhookSecrets[0].Value != secretA {
		t.Fatalf("legacy secret: %+v %v", opened.WebhookSecrets, err)
	}
	if tok, err := c.OpenedToken(ctx, k, "crm"); err != nil || tok != "crm-token" {
		t.Fatalf("legacy token %q %v", tok, err)
	}
	store := &sealingStore{Store: tenanttest.NewStore(), k: k}
	c.Settings = map[string]string{}
	if err := store.Store.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	n, err := tenant.Admin{Store: store, Keeper: k}.Reseal(ctx, "acme")
	if err != nil || n != 2 {
		t.Fatalf("reseal: %d values, %v; want 2", n, err)
	}
	got, _ := store.Get(ctx, "acme")
	if v, err := k.Open(ctx, got.WebhookSecrets[0].Value, got.EncryptionContext(tenant.PurposeIngest)); err != nil || v != secretA {
		t.Fatalf("resealed secret opens as %q, %v", v, err)
	}
	if _, err := k.Open(ctx, got.WebhookSecrets[0].Value, legacy); err == nil {
		t.Fatal("the resealed secret still opens under the legacy context")
	}
	if n, err := (tenant.Admin{Store: store, Keeper: k}).Reseal(ctx, "acme"); err != nil || n != 0 {
		t.Fatalf("second reseal: %d, %v; want nothing left to do", n, err)
	}
}

// sealingStore seals on write, as the DynamoDB store does with a keeper.
type sealingStore struct {
	tenant.Store
	k tenant.Keeper
}

func (s *sealingStore) Update(ctx context.Context, c tenant.Config) error {
	sc, err := c.Sealed(ctx, s.k)
	if err != nil {
		return err
	}
	return s.Store.Update(ctx, sc)
}
