package tenant_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sealed/kmskey"
	"github.com/syncassist/syncassist/shared/tenant"
)

// motoKMS is a sealer on a fresh KMS key of the moto at cfg's endpoint. moto checks no
// signature, so the key is made with a bare request (as kmskey's moto test does).
func motoKMS(t *testing.T, cfg aws.Config) *sealed.Sealer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, *cfg.BaseEndpoint, bytes.NewReader([]byte(`{"Description":"reseal test"}`)))
	req.Header.Set("X-Amz-Target", "TrentService.CreateKey")
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/kms/aws4_request")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct{ KeyMetadata struct{ Arn string } }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.KeyMetadata.Arn == "" {
		t.Fatalf("CreateKey: %d %v", resp.StatusCode, err)
	}
	return &sealed.Sealer{Wrapper: kmskey.New(cfg, cfg.BaseEndpoint, created.KeyMetadata.Arn)}
}

// The resealing job on the tenant table in the emulators, sealing with the local key as
// the local stack does (LOCAL_SEALING_KEY) next to dynalite, and with a KMS key on moto,
// which holds data keys to their encryption context as KMS does: it moves every value sealed without a purpose to its purpose's
// context and leaves the rest alone, resumes from its cursor, writes nothing when run
// again, and Pending counts what is left.
func TestResealAllMovesLegacyValuesToTheirPurposes(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx, k := context.Background(), newSealer(t)
		if e.Name == emutest.Moto.Name {
			k = motoKMS(t, e.Config(t))
		}
		store := newDynamoStore(t, e)
		store.Keeper = k
		admin := tenant.Admin{Store: store, Keeper: k}
		legacy := func(id, plain string) string {
			v, err := k.Seal(ctx, plain, map[string]string{"tenant_id": id})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		flowCRM := tenant.FlowPurpose("crm")
		// acme: a webhook secret, a flow secret and a credential sealed without a purpose,
		// a finance secret sealed under its own (the store seals the plain one on create).
		acme := tenant.Config{ID: "acme", Settings: map[string]string{},
			WebhookSecrets: []tenant.Secret{{Value: legacy("acme", secretA)}},
			FinanceSecrets: []tenant.Secret{{Value: "whsec_ZmluYW5jZS1zZWNyZXQtb2YtYWNtZQ=="}},
			Connectors:     map[string]tenant.Connector{"crm": {BaseURL: "https://crm.example.com", Token: legacy("acme", "crm-token")}}}
		*acme.Secrets(flowCRM) = []tenant.Secret{{Value: legacy("acme", "whsec_Zmxvdy1jcm0tc2VjcmV0LW9mLWFjbWU=")}}
		bravo := tenant.Config{ID: "bravo", Settings: map[string]string{}, WebhookSecrets: []tenant.Secret{{Value: secretA}}}
		corp := tenant.Config{ID: "corp", Settings: map[string]string{}, EmbeddedSecrets: []tenant.Secret{{Value: legacy("corp", secretA)}}}
		for _, c := range []tenant.Config{acme, bravo, corp} {
			if err := store.Create(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		pending := func() map[string]tenant.Kinds {
			t.Helper()
			out := map[string]tenant.Kinds{}
			if err := admin.PendingAll(ctx, func(id string, n tenant.Kinds) { out[id] = n }); err != nil {
				t.Fatal(err)
			}
			return out
		}
		want := map[string]tenant.Kinds{
			"acme":  {tenant.PurposeIngest: 1, flowCRM: 1, tenant.PurposeConnectors: 1},
			"bravo": {}, "corp": {tenant.PurposeEmbedded: 1},
		}
		if got := pending(); !maps.EqualFunc(got, want, maps.Equal) {
			t.Fatalf("pending %v, want %v", got, want)
		}

		// A run that stops names the last tenant it finished; resumed after acme, it
		// leaves acme as it was.
		stop := errors.New("session lost")
		if cursor, err := admin.ResealAll(ctx, "", func(string, tenant.Kinds) error { return stop }); !errors.Is(err, stop) || cursor != "" {
			t.Fatalf("stopped run: cursor %q, %v", cursor, err)
		}
		seen := map[string]tenant.Kinds{}
		record := func(id string, n tenant.Kinds) error { seen[id] = n; return nil }
		if cursor, err := admin.ResealAll(ctx, "acme", record); err != nil || cursor != "corp" {
			t.Fatalf("resumed run: cursor %q, %v", cursor, err)
		}
		if _, ok := seen["acme"]; ok || seen["corp"][tenant.PurposeEmbedded] != 1 || seen["bravo"].Total() != 0 {
			t.Fatalf("resumed after acme, resealed %v", seen)
		}
		// The stopped run had resealed acme before it stopped; the last run reseals the rest.
		if got := pending(); got["acme"].Total() != 0 || got["corp"].Total() != 0 {
			t.Fatalf("pending after the runs %v, want none", got)
		}

		// Every value now opens under its purpose's context and no longer without it.
		got, err := store.Get(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		for p, v := range map[tenant.Purpose]string{tenant.PurposeIngest: got.WebhookSecrets[0].Value, tenant.PurposeFinance: got.FinanceSecrets[0].Value,
			flowCRM: (*got.Secrets(flowCRM))[0].Value, tenant.PurposeConnectors: got.Connectors["crm"].Token} {
			if _, err := k.Open(ctx, v, got.EncryptionContext(p)); err != nil {
				t.Errorf("%s does not open under its purpose: %v", p, err)
			}
			if _, err := k.Open(ctx, v, map[string]string{"tenant_id": "acme"}); err == nil {
				t.Errorf("%s still opens without its purpose", p)
			}
		}
		if tok, err := got.OpenedToken(ctx, k, "crm"); err != nil || tok != "crm-token" {
			t.Fatalf("credential %q, %v", tok, err)
		}

		// Run again, the job finds nothing and writes nothing.
		before := map[string]int64{}
		for _, id := range []string{"acme", "bravo", "corp"} {
			c, _ := store.Get(ctx, id)
			before[id] = c.Version
		}
		clear(seen)
		if _, err := admin.ResealAll(ctx, "", record); err != nil {
			t.Fatal(err)
		}
		for id, v := range before {
			if c, _ := store.Get(ctx, id); c.Version != v || seen[id].Total() != 0 {
				t.Errorf("%s: version %d → %d, resealed %v on a second run", id, v, c.Version, seen[id])
			}
		}
	})
}
