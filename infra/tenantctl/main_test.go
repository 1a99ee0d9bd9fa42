package main

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// scanner is the DLP scanner the audit redacts with, built once: it compiles many rules.
var scanner = sync.OnceValue(dlp.NewScanner)

// testAdmin is the command over in-memory stores, wired as the settings API's service is.
func testAdmin() (cli, *tenanttest.Store) {
	c, store, _ := testCLI("")
	return c, store
}

func testCLI(stdin string) (cli, *tenanttest.Store, *audittest.Store) {
	store := tenanttest.NewStore()
	overrides := &governancetest.Overrides{}
	audits := &audittest.Store{}
	clock := func() time.Time { return testNow }
	svc := &settings.Service{
		Admin:     tenant.Admin{Store: store, Now: clock},
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Overrides: overrides,
		Audit:     &audit.Log{Store: audits, Redactor: platform.RecordRedactor{Scanner: scanner()}, Now: clock},
	}
	return cli{svc: svc, actor: "tenantctl:tester", in: strings.NewReader(stdin), out: nil}, store, audits
}

func runCommand(t *testing.T, c cli, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	c.out = &out
	err := c.command(context.Background(), args)
	return out.String(), err
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, admin cli, args ...string) string {
	t.Helper()
	out, err := runCommand(t, admin, args...)
	if err != nil {
		t.Fatalf("tenantctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// printedSecrets returns the whsec_ secrets in out, in order, failing unless there are n.
func printedSecrets(t *testing.T, out string, n int) []string {
	t.Helper()
	var found []string
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, webhook.SecretPrefix) {
			if _, err := webhook.ParseSecret(f); err != nil {
				t.Fatalf("printed secret %q does not parse: %v", f, err)
			}
			found = append(found, f)
		}
	}
	if len(found) != n {
		t.Fatalf("want %d secrets in output, got %d:\n%s", n, len(found), out)
	}
	return found
}

// printedSecret returns the one whsec_ secret in out.
func printedSecret(t *testing.T, out string) string {
	t.Helper()
	return printedSecrets(t, out, 1)[0]
}

// createdIngestSecret creates tenant id and returns its ingest secret, the first printed.
func createdIngestSecret(t *testing.T, admin cli, id string) string {
	t.Helper()
	return printedSecrets(t, mustRun(t, admin, "create", id), len(tenant.Purposes))[0]
}

func getTenant(t *testing.T, store tenant.Store, id string) tenant.Config {
	t.Helper()
	c, err := store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return c
}

func TestCreate(t *testing.T) {
	t.Parallel()
	admin, store := testAdmin()
	out := mustRun(t, admin, "create", "acme")
	secrets := printedSecrets(t, out, len(tenant.Purposes))
	secret := secrets[0]
	for _, sec := range secrets {
		if strings.Count(out, sec) != 1 {
			t.Errorf("secret printed %d times, want once:\n%s", strings.Count(out, sec), out)
		}
	}
	seen := map[string]bool{}
	for i, sec := range secrets {
		if seen[sec] {
			t.Errorf("the purposes share a secret:\n%s", out)
		}
		seen[sec] = true
		stored := getTenant(t, store, "acme")
		if got := *stored.Secrets(tenant.Purposes[i]); len(got) != 1 || got[0].Value != sec {
			t.Errorf("the %s secret printed is not the one stored:\n%s", tenant.Purposes[i], out)
		}
	}
	if !strings.Contains(out, "acme") || !strings.Contains(out, "'false'") {
		t.Errorf("output does not name the tenant and its flags:\n%s", out)
	}
	c := getTenant(t, store, "acme")
	want := map[string]string{tenant.KeyEnabled: "false", tenant.KeyWebhookEnabled: "false"}
	if !reflect.DeepEqual(c.Settings, want) {
		t.Errorf("settings = %v, want %v", c.Settings, want)
	}
	if len(c.WebhookSecrets) != 1 || c.WebhookSecrets[0].Value != secret || !c.WebhookSecrets[0].RetireAt.IsZero() {
		t.Errorf("stored secrets = %+v, want the printed one, current", c.WebhookSecrets)
	}
	if !c.CreatedAt.Equal(testNow) {
		t.Errorf("CreatedAt = %v, want the admin clock %v", c.CreatedAt, testNow)
	}

	// A second create of the same tenant fails and prints nothing.
	out, err := runCommand(t, admin, "create", "acme")
	if !errors.Is(err, tenant.ErrExists) || out != "" {
		t.Fatalf("duplicate create = %v, output %q; want ErrExists and no output", err, out)
	}
	if c2 := getTenant(t, store, "acme"); c2.WebhookSecrets[0].Value != secret {
		t.Fatal("duplicate create replaced the secret")
	}
}

func TestCreateRefusesBadID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"Acme", "acme corp", "-acme", strings.Repeat("a", 64), "acme/../x"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			out, err := runCommand(t, admin, "create", id)
			if err == nil || strings.Contains(out, webhook.SecretPrefix) {
				t.Fatalf("create %q = %v, output %q; want an error and no secret", id, err, out)
			}
			if cs, _ := store.List(context.Background()); len(cs) != 0 {
				t.Fatalf("refused create stored %+v", cs)
			}
		})
	}
}

func TestSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		key      string
		value    string
		wantNote bool
	}{
		{"enabled true", tenant.KeyEnabled, "true", false},
		{"webhook true", tenant.KeyWebhookEnabled, "true", false},
		{"upper-case TRUE", tenant.KeyEnabled, "TRUE", true},
		{"yes", tenant.KeyEnabled, "yes", true},
		{"1", tenant.KeyWebhookEnabled, "1", true},
		{"padded", tenant.KeyEnabled, " true", true},
		{"false", tenant.KeyEnabled, "false", true},
		{"empty", tenant.KeyEnabled, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			mustRun(t, admin, "create", "acme")
			out := mustRun(t, admin, "set", "acme", tt.key, tt.value)
			if !strings.Contains(out, tt.key) {
				t.Errorf("output does not name the key:\n%s", out)
			}
			if got := strings.Contains(out, "note:"); got != tt.wantNote {
				t.Errorf("note printed = %v, want %v:\n%s", got, tt.wantNote, out)
			}
			c := getTenant(t, store, "acme")
			if c.Settings[tt.key] != tt.value {
				t.Errorf("stored %s = %q, want %q", tt.key, c.Settings[tt.key], tt.value)
			}
			if c.Flag(tt.key) != !tt.wantNote {
				t.Errorf("Flag(%s) = %v, want %v", tt.key, c.Flag(tt.key), !tt.wantNote)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr error // nil: any error
	}{
		{"unknown key", []string{"set", "acme", "sync_error_assist.enable", "true"}, nil},
		{"unknown tenant", []string{"set", "nobody", tenant.KeyEnabled, "true"}, tenant.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			mustRun(t, admin, "create", "acme")
			before := getTenant(t, store, "acme")
			out, err := runCommand(t, admin, tt.args...)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("%v = %v, want error %v", tt.args, err, tt.wantErr)
			}
			if out != "" {
				t.Errorf("failed command printed %q", out)
			}
			if after := getTenant(t, store, "acme"); !reflect.DeepEqual(after, before) {
				t.Errorf("failed command changed the tenant: %+v", after)
			}
		})
	}
}

func TestEnable(t *testing.T) {
	t.Parallel()
	admin, store := testAdmin()
	mustRun(t, admin, "create", "acme")
	out := mustRun(t, admin, "enable", "acme")
	if !strings.Contains(out, "acme") {
		t.Errorf("output = %q", out)
	}
	c := getTenant(t, store, "acme")
	if c.Settings[tenant.KeyEnabled] != "true" || c.Settings[tenant.KeyWebhookEnabled] != "true" || !c.FeatureEnabled() || c.DisabledFlag() != "" {
		t.Fatalf("settings after enable = %v", c.Settings)
	}
	if _, err := runCommand(t, admin, "enable", "nobody"); !errors.Is(err, tenant.ErrNotFound) {
		t.Fatalf("enable nobody = %v, want ErrNotFound", err)
	}
}

func TestRotateSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantGrace time.Duration
	}{
		{"grace 1h", []string{"-grace", "1h"}, time.Hour},
		{"grace with = form", []string{"-grace=90m"}, 90 * time.Minute},
		{"default grace", nil, tenant.DefaultRotationGrace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			old := createdIngestSecret(t, admin, "acme")
			out := mustRun(t, admin, append([]string{"rotate-secret", "acme"}, tt.args...)...)
			secret := printedSecret(t, out)
			if secret == old {
				t.Fatal("rotation printed the old secret")
			}
			if strings.Contains(out, old) {
				t.Fatalf("rotation output reveals the old secret:\n%s", out)
			}
			c := getTenant(t, store, "acme")
			want := []tenant.Secret{
				{Value: secret, CreatedAt: testNow},
				{Value: old, CreatedAt: testNow, RetireAt: testNow.Add(tt.wantGrace)},
			}
			if !reflect.DeepEqual(c.WebhookSecrets, want) {
				t.Fatalf("secrets = %+v\nwant %+v", c.WebhookSecrets, want)
			}
			if n := len(c.ActiveKeys(string(tenant.PurposeIngest), testNow)); n != 2 {
				t.Fatalf("%d secrets verify right after rotation, want 2", n)
			}
		})
	}
}

func TestRotateSecretPrintsRetireTimeFromAdminClock(t *testing.T) {
	t.Parallel()
	admin, store := testAdmin()
	mustRun(t, admin, "create", "acme")
	out := mustRun(t, admin, "rotate-secret", "acme", "-grace", "1h")
	retire := getTenant(t, store, "acme").WebhookSecrets[1].RetireAt
	if want := retire.Format(time.RFC3339); !strings.Contains(out, want) {
		t.Fatalf("output does not give the stored retire time %s:\n%s", want, out)
	}
}

func TestRotateSecretErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr error // nil: any error
	}{
		{"unknown tenant", []string{"rotate-secret", "nobody", "-grace", "1h"}, tenant.ErrNotFound},
		{"bad grace", []string{"rotate-secret", "acme", "-grace", "soon"}, nil},
		{"unknown flag", []string{"rotate-secret", "acme", "-force"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			mustRun(t, admin, "create", "acme")
			before := getTenant(t, store, "acme")
			out, err := runCommand(t, admin, tt.args...)
			if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("%v = %v, want error %v", tt.args, err, tt.wantErr)
			}
			if strings.Contains(out, webhook.SecretPrefix) {
				t.Errorf("failed rotation printed a secret:\n%s", out)
			}
			if after := getTenant(t, store, "acme"); !reflect.DeepEqual(after, before) {
				t.Errorf("failed rotation changed the tenant: %+v", after)
			}
		})
	}
}

func TestShowNeverPrintsSecrets(t *testing.T) {
	t.Parallel()
	admin, store := testAdmin()
	first := createdIngestSecret(t, admin, "acme")
	mustRun(t, admin, "set", "acme", tenant.KeyEnabled, "true")
	second := printedSecret(t, mustRun(t, admin, "rotate-secret", "acme", "-grace", "1h"))

	out := mustRun(t, admin, "show", "acme")
	for _, s := range []string{first, second} {
		key := strings.TrimPrefix(s, webhook.SecretPrefix)
		if strings.Contains(out, s) || strings.Contains(out, key) {
			t.Fatalf("show reveals secret %q:\n%s", s, out)
		}
		// Nor a recognisable chunk of the key.
		if strings.Contains(out, key[:12]) || strings.Contains(out, key[len(key)-13:]) {
			t.Fatalf("show reveals part of secret %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, webhook.SecretPrefix) {
		t.Fatalf("show prints something secret-shaped:\n%s", out)
	}
	c := getTenant(t, store, "acme")
	for _, want := range []string{
		"tenant acme",
		tenant.KeyEnabled + ` = "true"`,
		tenant.KeyWebhookEnabled + ` = "false"`,
		fingerprint(first),
		fingerprint(second),
		"current",
		"retiring at " + testNow.Add(time.Hour).Format(time.RFC3339),
		"feature active: false",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
	// Two webhook secrets (rotated), and one of every other purpose.
	if len(c.WebhookSecrets) != 2 || strings.Count(out, "sha256:") != len(tenant.Purposes)+1 ||
		!strings.Contains(out, "finance secret") || !strings.Contains(out, "flow.shipping secret") {
		t.Errorf("want %d secret fingerprints, got:\n%s", len(tenant.Purposes)+1, out)
	}
	if fingerprint(first) == fingerprint(second) {
		t.Error("two secrets share a fingerprint")
	}

	if _, err := runCommand(t, admin, "show", "nobody"); !errors.Is(err, tenant.ErrNotFound) {
		t.Fatalf("show nobody = %v, want ErrNotFound", err)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	admin, _ := testAdmin()
	if out := mustRun(t, admin, "list"); out != "" {
		t.Fatalf("list of no tenants = %q, want nothing", out)
	}
	for _, id := range []string{"globex", "acme", "initech"} {
		mustRun(t, admin, "create", id)
	}
	mustRun(t, admin, "enable", "globex")
	mustRun(t, admin, "rotate-secret", "initech")
	out := mustRun(t, admin, "list")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("list printed %d lines, want 3:\n%s", len(lines), out)
	}
	want := []struct {
		id, enabled, webhook, secrets string
	}{
		{"acme", "enabled=false", "webhook_enabled=false", "secrets=8"},
		{"globex", "enabled=true", "webhook_enabled=true", "secrets=8"},
		{"initech", "enabled=false", "webhook_enabled=false", "secrets=9"},
	}
	for i, w := range want {
		f := strings.Fields(lines[i])
		if len(f) != 4 || f[0] != w.id || f[1] != w.enabled || f[2] != w.webhook || f[3] != w.secrets {
			t.Errorf("line %d = %q, want %s %s %s %s", i, lines[i], w.id, w.enabled, w.webhook, w.secrets)
		}
	}
	if strings.Contains(out, webhook.SecretPrefix) {
		t.Errorf("list prints a secret:\n%s", out)
	}
}

func TestCommandUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"unknown command", []string{"delete", "acme"}},
		{"command case matters", []string{"CREATE", "acme"}},
		{"create without tenant", []string{"create"}},
		{"set without anything", []string{"set"}},
		{"set without key", []string{"set", "acme"}},
		{"set without value", []string{"set", "acme", tenant.KeyEnabled}},
		{"enable without tenant", []string{"enable"}},
		{"rotate-secret without tenant", []string{"rotate-secret"}},
		{"show without tenant", []string{"show"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			admin, store := testAdmin()
			mustRun(t, admin, "create", "acme")
			before := getTenant(t, store, "acme")
			out, err := runCommand(t, admin, tt.args...)
			if err == nil {
				t.Fatalf("%v succeeded with output %q, want an error", tt.args, out)
			}
			if !strings.Contains(err.Error(), "usage") {
				t.Errorf("error %q does not show the usage", err)
			}
			if out != "" {
				t.Errorf("failed command printed %q", out)
			}
			if after := getTenant(t, store, "acme"); !reflect.DeepEqual(after, before) {
				t.Errorf("failed command changed the tenant: %+v", after)
			}
		})
	}

	t.Run("no arguments", func(t *testing.T) {
		t.Parallel()
		admin, _ := testAdmin()
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("command with no arguments panicked: %v", r)
			}
		}()
		if _, err := runCommand(t, admin); err == nil {
			t.Fatal("command with no arguments succeeded")
		}
	})
}

// A tenant stored before flow sources had secrets gets its first one by rotation.
func TestRotateInAFlowSourceSecret(t *testing.T) {
	t.Parallel()
	admin, store := testAdmin()
	mustRun(t, admin, "create", "acme")
	c := getTenant(t, store, "acme")
	c.FlowSecrets = [len(tenant.FlowSources)][]tenant.Secret{}
	if err := store.Update(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	secret := printedSecret(t, mustRun(t, admin, "rotate-secret", "acme", "-purpose", "flow.crm"))
	after := getTenant(t, store, "acme")
	if got := *after.Secrets(tenant.FlowPurpose("crm")); len(got) != 1 || got[0].Value != secret || !got[0].RetireAt.IsZero() {
		t.Fatalf("flow.crm secrets %+v, want the printed one, current", got)
	}
	if len(*after.Secrets(tenant.FlowPurpose("shipping"))) != 0 {
		t.Fatal("rotating one source's secret made another's")
	}
	if _, err := runCommand(t, admin, "rotate-secret", "acme", "-purpose", "flow.nope"); err == nil {
		t.Fatal("an unknown flow source was rotated")
	}
}
