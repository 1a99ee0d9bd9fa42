package platform_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestAWSConfigFromEnvTakesLambdasVariables(t *testing.T) {
	vars := map[string]string{"AWS_REGION": "eu-central-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
		"AWS_SECRET_ACCESS_KEY": "secret-not-real", "AWS_SESSION_TOKEN": "session"}
	cfg, err := platform.AWSConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || cfg.Region != "eu-central-1" || creds.AccessKeyID != "AKIDEXAMPLE" || creds.SessionToken != "session" {
		t.Fatalf("region %q creds %+v err %v", cfg.Region, creds, err)
	}
	if cfg.BaseEndpoint != nil {
		t.Errorf("endpoint %q without AWS_ENDPOINT_URL", *cfg.BaseEndpoint)
	}
	for _, missing := range []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		partial := map[string]string{}
		for k, v := range vars {
			if k != missing {
				partial[k] = v
			}
		}
		if _, err := platform.AWSConfigFromEnv(env(partial)); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(missing, "_ID")) {
			t.Errorf("without %s: %v", missing, err)
		}
	}
}

func TestEndpointPrefersTheServicesOwn(t *testing.T) {
	vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
		"AWS_ENDPOINT_URL": "http://all:4566", "AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://sm:1"}
	awsCfg, err := platform.AWSConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := platform.ConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	b := platform.New(cfg, awsCfg, env(vars))
	if got := b.Endpoint("Secrets Manager"); got == nil || *got != "http://sm:1" {
		t.Errorf("secrets manager endpoint %v", got)
	}
	if got := b.Endpoint("DynamoDB"); got == nil || *got != "http://all:4566" {
		t.Errorf("dynamodb endpoint %v, want the global one", got)
	}
}

func TestConfigFromEnv(t *testing.T) {
	cfg, err := platform.ConfigFromEnv(env(map[string]string{"STAGE": "prod", blueprint.Tenants.EnvVar: "custom-tenants"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Table(blueprint.Tenants) != "custom-tenants" || cfg.Table(blueprint.Audit) != blueprint.PhysicalName("prod", blueprint.TableAudit) {
		t.Errorf("tables %v", cfg.Tables)
	}
	for k, v := range map[string]string{"TENANT_CACHE_TTL": "soon", "LOOP_WINDOW": "-1m", "LOG_LEVEL": "loud", "CORS_ALLOWED_ORIGINS": "not a url"} {
		if _, err := platform.ConfigFromEnv(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}

// The record redactor's text path (used for audit resource names) masks like its JSON path
// and hands back clean text untouched.
func TestRecordRedactorText(t *testing.T) {
	r := platform.RecordRedactor{Scanner: dlp.NewScanner()}
	got, err := r.RedactText(context.Background(), "crm/contact/jane.doe@example.com")
	if err != nil || got != "crm/contact/[REDACTED:EMAIL]" {
		t.Fatalf("%q %v", got, err)
	}
	if got, _ := r.RedactText(context.Background(), "hosterp/salesOrder/SO-1"); got != "hosterp/salesOrder/SO-1" {
		t.Fatalf("clean text changed: %q", got)
	}
}

// EachTenant runs every tenant once however it goes, counts the failures, and starts each
// minute's run at another tenant so a job that runs out of time does not starve the same
// ones.
func TestEachTenantRunsAllAndTurnsTheStart(t *testing.T) {
	store := tenanttest.NewStore()
	for _, id := range []string{"a", "b", "c"} {
		if err := store.Create(context.Background(), tenant.Config{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	b := &platform.Base{Tenants: store, Log: slog.New(slog.DiscardHandler)}
	firsts := map[string]bool{}
	for minute := range 3 {
		b.Now = func() time.Time { return time.Unix(int64(minute)*60, 0) }
		var seen []string
		failed, err := b.EachTenant(context.Background(), "job", blueprint.Processed, func(_ context.Context, id string) error {
			seen = append(seen, id)
			if id == "b" {
				return errors.New("down")
			}
			return nil
		})
		if err != nil || failed != 1 || len(seen) != 3 {
			t.Fatalf("minute %d: ran %v, %d failed, err %v", minute, seen, failed, err)
		}
		firsts[seen[0]] = true
		if slices.Sort(seen); !slices.Equal(seen, []string{"a", "b", "c"}) {
			t.Fatalf("minute %d ran %v, want each tenant once", minute, seen)
		}
	}
	if len(firsts) != 3 {
		t.Fatalf("three minutes started at %v, want three different tenants", firsts)
	}
}

// The blueprint conditions each function's key grant on purposes by name; the names must
// be the ones the tenant package seals under, or a grant would open nothing.
func TestBlueprintSecretPurposesAreTheTenantsOwn(t *testing.T) {
	want := []string{}
	for _, p := range tenant.Purposes {
		want = append(want, string(p))
	}
	want = append(want, string(tenant.PurposeConnectors))
	if !slices.Equal(blueprint.SecretPurposes, want) {
		t.Fatalf("blueprint.SecretPurposes %v, tenant's %v", blueprint.SecretPurposes, want)
	}
	for i, sys := range tenant.FlowSources {
		if blueprint.FlowSourcePurposes[i] != string(tenant.FlowPurpose(sys)) {
			t.Fatalf("blueprint.FlowSourcePurposes %v", blueprint.FlowSourcePurposes)
		}
	}
	for _, f := range blueprint.Functions {
		if signed := f.Route != nil && f.Route.Auth == blueprint.AuthSigned; signed != (len(f.Verifies) > 0) {
			t.Errorf("%s: a host-signed route names the purposes it verifies with, and only one (%v)", f.Name, f.Verifies)
		}
		for _, p := range f.Opens() {
			if !slices.Contains(want, p) {
				t.Errorf("%s opens unknown purpose %q", f.Name, p)
			}
		}
	}
}
