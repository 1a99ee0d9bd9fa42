package tenant_test

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

var (
	now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	// Valid secrets with distinct keys.
	secretA = "whsec_" + base64.StdEncoding.EncodeToString([]byte("secret-a-0123456789abcdef-32byte"))
	secretB = "whsec_" + base64.StdEncoding.EncodeToString([]byte("secret-b-0123456789abcdef-32byte"))
	secretC = "whsec_" + base64.StdEncoding.EncodeToString([]byte("secret-c-0123456789abcdef-32byte"))
	secretD = "whsec_" + base64.StdEncoding.EncodeToString([]byte("secret-d-0123456789abcdef-32byte"))
)

func mustKey(t testing.TB, secret string) []byte {
	t.Helper()
	k, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatalf("ParseSecret(%q): %v", secret, err)
	}
	return k
}

// clock is a settable clock for Admin.Now.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

func newAdmin() (tenant.Admin, *tenanttest.Store, *clock) {
	store := tenanttest.NewStore()
	clk := &clock{t: now}
	return tenant.Admin{Store: store, Now: clk.Now}, store, clk
}

func TestFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		set   bool
		want  bool
	}{
		{"true", true, true},
		{"TRUE", true, false},
		{"True", true, false},
		{"yes", true, false},
		{" true", true, false},
		{"true ", true, false},
		{"true\n", true, false},
		{"1", true, false},
		{"on", true, false},
		{"false", true, false},
		{"", true, false},
		{"", false, false},
	}
	for _, tt := range tests {
		name := tt.value
		if !tt.set {
			name = "unset"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := tenant.Config{Settings: map[string]string{}}
			if tt.set {
				c.Settings[tenant.KeyEnabled] = tt.value
			}
			if got := c.Flag(tenant.KeyEnabled); got != tt.want {
				t.Fatalf("Flag(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
	t.Run("nil settings", func(t *testing.T) {
		t.Parallel()
		var c tenant.Config
		if c.Flag(tenant.KeyEnabled) || c.FeatureEnabled() || c.DisabledFlag() != tenant.KeyEnabled {
			t.Fatalf("zero Config: Flag=%v FeatureEnabled=%v DisabledFlag=%q", c.Flag(tenant.KeyEnabled), c.FeatureEnabled(), c.DisabledFlag())
		}
	})
}

func TestFeatureEnabledAndDisabledFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		enabled      string
		webhook      string
		wantEnabled  bool
		wantDisabled string
	}{
		{"both true", "true", "true", true, ""},
		{"both false", "false", "false", false, tenant.KeyEnabled},
		{"only enabled", "true", "false", false, tenant.KeyWebhookEnabled},
		{"only webhook", "false", "true", false, tenant.KeyEnabled},
		{"webhook not exactly true", "true", "TRUE", false, tenant.KeyWebhookEnabled},
		{"enabled empty", "", "true", false, tenant.KeyEnabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tenant.Config{Settings: map[string]string{tenant.KeyEnabled: tt.enabled, tenant.KeyWebhookEnabled: tt.webhook}}
			if got := c.FeatureEnabled(); got != tt.wantEnabled {
				t.Errorf("FeatureEnabled = %v, want %v", got, tt.wantEnabled)
			}
			if got := c.DisabledFlag(); got != tt.wantDisabled {
				t.Errorf("DisabledFlag = %q, want %q", got, tt.wantDisabled)
			}
		})
	}
}

func TestActiveKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []tenant.Secret
		want    []string // secrets whose keys are expected, in order
	}{
		{"none", nil, nil},
		{"one current", []tenant.Secret{{Value: secretA, CreatedAt: now}}, []string{secretA}},
		{"current and retiring", []tenant.Secret{
			{Value: secretB, CreatedAt: now},
			{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(time.Second)},
		}, []string{secretB, secretA}},
		{"retire time exactly now", []tenant.Secret{
			{Value: secretB, CreatedAt: now},
			{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now},
		}, []string{secretB}},
		{"retire time one nanosecond ahead", []tenant.Secret{
			{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(time.Nanosecond)},
		}, []string{secretA}},
		{"retired in the past", []tenant.Secret{
			{Value: secretC, CreatedAt: now},
			{Value: secretA, CreatedAt: now.Add(-48 * time.Hour), RetireAt: now.Add(-24 * time.Hour)},
		}, []string{secretC}},
		{"unparseable secrets skipped", []tenant.Secret{
			{Value: "not-a-secret", CreatedAt: now},
			{Value: "whsec_!!!", CreatedAt: now},
			{Value: "whsec_" + base64.StdEncoding.EncodeToString([]byte("short")), CreatedAt: now},
			{Value: "", CreatedAt: now},
			{Value: secretD, CreatedAt: now},
		}, []string{secretD}},
		{"all retired", []tenant.Secret{
			{Value: secretA, RetireAt: now.Add(-time.Second)},
			{Value: secretB, RetireAt: now},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tenant.Config{WebhookSecrets: tt.secrets}
			got := c.ActiveKeys(string(tenant.PurposeIngest), now)
			want := [][]byte{}
			for _, s := range tt.want {
				want = append(want, mustKey(t, s))
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("ActiveKeys = %q, want %q", got, want)
			}
		})
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"acme", true},
		{"a", true},
		{"0", true},
		{"acme-corp_2", true},
		{"9lives", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"Acme", false},
		{"ACME", false},
		{"-acme", false},
		{"_acme", false},
		{"acme corp", false},
		{"acme.corp", false},
		{"acme/corp", false},
		{"acme\n", false},
		{"acme\x00", false},
		{"äcme", false},
		{" acme", false},
		{"acme#1", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			if got := tenant.ValidID(tt.id); got != tt.want {
				t.Fatalf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func TestRotate(t *testing.T) {
	t.Parallel()
	grace := 24 * time.Hour
	tests := []struct {
		name    string
		secrets []tenant.Secret
		grace   time.Duration
		want    []tenant.Secret
	}{
		{"first rotation", []tenant.Secret{{Value: secretA, CreatedAt: now.Add(-time.Hour)}}, grace, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(grace)},
		}},
		{"drops the one already retiring", []tenant.Secret{
			{Value: secretB, CreatedAt: now.Add(-time.Hour)},
			{Value: secretA, CreatedAt: now.Add(-2 * time.Hour), RetireAt: now.Add(time.Hour)},
		}, grace, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretB, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(grace)},
		}},
		{"order of input does not matter", []tenant.Secret{
			{Value: secretA, CreatedAt: now.Add(-2 * time.Hour), RetireAt: now.Add(time.Hour)},
			{Value: secretB, CreatedAt: now.Add(-time.Hour)},
		}, grace, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretB, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(grace)},
		}},
		{"drops long-retired secrets", []tenant.Secret{
			{Value: secretC, CreatedAt: now.Add(-time.Hour)},
			{Value: secretB, CreatedAt: now.Add(-48 * time.Hour), RetireAt: now.Add(-24 * time.Hour)},
			{Value: secretA, CreatedAt: now.Add(-72 * time.Hour), RetireAt: now.Add(-48 * time.Hour)},
		}, grace, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretC, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(grace)},
		}},
		{"same creation instant: the listed-first current one retires", []tenant.Secret{
			{Value: secretB, CreatedAt: now},
			{Value: secretA, CreatedAt: now, RetireAt: now.Add(time.Hour)},
		}, time.Hour, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretB, CreatedAt: now, RetireAt: now.Add(time.Hour)},
		}},
		{"custom grace", []tenant.Secret{{Value: secretA, CreatedAt: now.Add(-time.Hour)}}, 5 * time.Minute, []tenant.Secret{
			{Value: secretD, CreatedAt: now},
			{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now.Add(5 * time.Minute)},
		}},
		{"grace zero keeps only the new secret", []tenant.Secret{
			{Value: secretB, CreatedAt: now.Add(-time.Hour)},
			{Value: secretA, CreatedAt: now.Add(-2 * time.Hour), RetireAt: now.Add(time.Hour)},
		}, 0, []tenant.Secret{{Value: secretD, CreatedAt: now}}},
		{"negative grace keeps only the new secret", []tenant.Secret{{Value: secretA, CreatedAt: now.Add(-time.Hour)}}, -time.Hour,
			[]tenant.Secret{{Value: secretD, CreatedAt: now}}},
		{"no secrets", nil, grace, []tenant.Secret{{Value: secretD, CreatedAt: now}}},
		{"only retired secrets", []tenant.Secret{{Value: secretA, CreatedAt: now.Add(-time.Hour), RetireAt: now}}, grace,
			[]tenant.Secret{{Value: secretD, CreatedAt: now}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := append([]tenant.Secret(nil), tt.secrets...)
			got := tenant.Rotate(tt.secrets, secretD, now, tt.grace)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Rotate =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.secrets, before) && !(len(before) == 0 && len(tt.secrets) == 0) {
				t.Fatalf("Rotate modified its input: %+v, was %+v", tt.secrets, before)
			}
			c := tenant.Config{WebhookSecrets: got}
			if n := len(c.ActiveKeys(string(tenant.PurposeIngest), now)); n > 2 || n < 1 {
				t.Fatalf("%d secrets verify after rotation, want 1 or 2", n)
			}
		})
	}
}

func TestEveryPurposeHasItsOwnSecrets(t *testing.T) {
	var c tenant.Config
	held := map[*[]tenant.Secret]tenant.Purpose{}
	for _, p := range tenant.Purposes {
		s := c.Secrets(p)
		if s == nil || !tenant.ValidPurpose(p) {
			t.Fatalf("purpose %s has no secrets", p)
		}
		if other, dup := held[s]; dup {
			t.Fatalf("%s and %s share their secrets", other, p)
		}
		held[s] = p
	}
	*c.Secrets(tenant.FlowPurpose("crm")) = []tenant.Secret{{Value: secretA, CreatedAt: now}}
	if len(c.ActiveKeys("flow.crm", now)) != 1 || len(c.ActiveKeys("flow.shipping", now)) != 0 || len(c.ActiveKeys("ingest", now)) != 0 {
		t.Fatal("a flow source's secret verifies for another purpose")
	}
	for _, p := range []tenant.Purpose{"flow.", "flow.nope", "flow", "Flow.crm"} {
		if tenant.ValidPurpose(p) || c.Secrets(p) != nil {
			t.Fatalf("purpose %q is accepted", p)
		}
	}
}
