package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/tenant"
)

// sealingStore seals on write, as the DynamoDB store does with the platform's keeper.
type sealingStore struct {
	tenant.Store
	k tenant.Keeper
}

func (s sealingStore) Update(ctx context.Context, c tenant.Config) error {
	sc, err := c.Sealed(ctx, s.k)
	if err != nil {
		return err
	}
	return s.Store.Update(ctx, sc)
}

// reseal -check counts what is left and fails while anything is; reseal -all moves every
// value sealed without a purpose to its purpose's context, audits each tenant's kinds with
// their counts, and a second run finds nothing.
func TestResealAllIsAuditedAndCheckedAndIdempotent(t *testing.T) {
	t.Parallel()
	c, store, audits := testCLI("")
	w, err := sealed.ParseLocalKey(sealed.NewLocalKey())
	if err != nil {
		t.Fatal(err)
	}
	k := &sealed.Sealer{Wrapper: w}
	c.svc.Admin.Keeper, c.svc.Admin.Store = k, sealingStore{store, k}
	ctx := context.Background()
	legacy := func(id, plain string) string {
		v, err := k.Seal(ctx, plain, map[string]string{"tenant_id": id})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, cfg := range []tenant.Config{
		{ID: "acme", Settings: map[string]string{}, WebhookSecrets: []tenant.Secret{{Value: legacy("acme", "whsec_YWNtZS1pbmdlc3Q=")}},
			Connectors: map[string]tenant.Connector{
				"crm":      {BaseURL: publicURL, Token: legacy("acme", "crm-token")},
				"shipping": {BaseURL: publicURL, Token: legacy("acme", "ship-token")}}},
		{ID: "globex", Settings: map[string]string{}, FinanceSecrets: []tenant.Secret{{Value: legacy("globex", "whsec_Z2xvYmV4LWZpbmFuY2U=")}}},
	} {
		if err := store.Create(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}

	out, err := runCommand(t, c, "reseal", "-check")
	if !errors.Is(err, errResealRemaining) || !strings.Contains(err.Error(), "4 values remain") ||
		!strings.Contains(out, "acme: 3 value(s) sealed without their purpose: connectors 2, ingest 1") ||
		!strings.Contains(out, "globex: 1 value(s) sealed without their purpose: finance 1") {
		t.Fatalf("check before: %v\n%s", err, out)
	}
	if len(audits.All()) != 0 {
		t.Fatal("the check wrote audit records")
	}

	out = mustRun(t, c, "reseal", "-all")
	if !strings.Contains(out, "4 value(s) in 2 tenant(s)") {
		t.Fatalf("reseal -all printed:\n%s", out)
	}
	recs := audits.All()
	got := map[string]string{}
	for _, r := range recs {
		if r.ActionKey != "settings.secret_reseal" || r.Actor.Actor != "tenantctl:tester" {
			t.Errorf("record %+v", r)
		}
		got[r.Actor.TenantID+" "+r.Resource] = string(r.Details)
	}
	want := map[string]string{
		"acme secret/connectors": `"resealed":2`, "acme secret/ingest": `"resealed":1`, "globex secret/finance": `"resealed":1`,
	}
	if len(recs) != len(want) {
		t.Fatalf("%d audit records, want one per tenant and kind: %v", len(recs), got)
	}
	for k, v := range want {
		if !strings.Contains(got[k], v) {
			t.Errorf("audit %s = %s, want %s", k, got[k], v)
		}
	}
	stored := getTenant(t, store, "acme")
	if v, err := k.Open(ctx, stored.Connectors["crm"].Token, stored.EncryptionContext(tenant.PurposeConnectors)); err != nil || v != "crm-token" {
		t.Fatalf("credential opens under its purpose as %q, %v", v, err)
	}

	if out := mustRun(t, c, "reseal", "-check"); !strings.Contains(out, "0 values sealed without their purpose") {
		t.Fatalf("check after:\n%s", out)
	}
	if out := mustRun(t, c, "reseal", "-all"); !strings.Contains(out, "0 value(s) in 2 tenant(s)") || len(audits.All()) != len(want) {
		t.Fatalf("second run audited %d records, printed:\n%s", len(audits.All()), out)
	}
	for _, args := range [][]string{{"reseal"}, {"reseal", "-all", "acme"}, {"reseal", "-check", "-all"}, {"reseal", "acme", "globex"}} {
		if _, err := runCommand(t, c, args...); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("%v: %v, want the usage", args, err)
		}
	}
}
