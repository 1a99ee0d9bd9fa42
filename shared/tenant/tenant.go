// Package tenant owns a tenant's configuration: its settings (the feature flags among them)
// and its webhook secrets, with the rules for reading flags and rotating secrets. Stores
// implement Store; the onboarding command and the handlers use it.
package tenant

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"time"

	"github.com/syncassist/syncassist/shared/webhook"
)

// Setting keys from the spec. Only the exact string "true" enables a flag.
const (
	KeyEnabled        = "sync_error_assist.enabled"
	KeyWebhookEnabled = "sync_error_assist.webhook_enabled"
)

// KeyEmbeddedAllowedRoles lists, comma-separated, the roles a host may give embedded
// sessions; absent or empty allows none.
const KeyEmbeddedAllowedRoles = "embedded.allowed_roles"

// FeatureFlags are the two flags that must both be "true" for the feature to act.
var FeatureFlags = []string{KeyEnabled, KeyWebhookEnabled}

// KeyFinanceEnabled switches finance approvals off for a tenant when "false". Unlike the
// sync-error flags it is on unless set: finance approvals predate it and every tenant
// had them.
const KeyFinanceEnabled = "finance_ops.enabled"

// KnownSettings are the keys the onboarding command accepts.
var KnownSettings = []string{KeyEnabled, KeyWebhookEnabled, KeyFinanceEnabled, KeyEmbeddedAllowedRoles, KeyMCPExternalTools,
	KeyAutoApply, KeyAutoRetry, KeyEmbeddedAllowedOrigins, KeyFinanceConfirmAbove, KeyModelBelow}

// KeyModelBelow is the rules' confidence under which the diagnosis asks the configured
// model, a number in [0, 1] (0: never; 1: unless the rules are certain); empty: the
// default from the held-out calibration (ai.DefaultModelBelow).
const KeyModelBelow = "sync_error_assist.model_below_confidence"

// KeyAutoApply lets the approval policy's enforced auto rules apply fixes; only "true"
// does, and switching it off stops them at once (shadow rules keep recording).
const KeyAutoApply = "sync_error_assist.auto_apply"

// KeyAutoRetry switches the automatic retry of connection, intermittent and rate-limit
// sync errors off for a tenant when "false"; it is on unless set.
const KeyAutoRetry = "sync_error_assist.auto_retry"

// AutoRetry reports whether sync errors of the retryable classes are retried on schedule.
func (c Config) AutoRetry() bool { return c.Settings[KeyAutoRetry] != "false" }

// KeyMCPExternalTools holds, as JSON, the external tools registered for the tenant's MCP
// discovery ("<server>.<tool>" names with descriptions and schemas).
const KeyMCPExternalTools = "mcp.external_tools"

// Errors a caller branches on.
var (
	ErrNotFound = errors.New("tenant not found")
	ErrExists   = errors.New("tenant already exists")
	// ErrConflict means the tenant changed between read and write; read again and retry.
	ErrConflict = errors.New("tenant changed concurrently")
)

// DefaultRotationGrace is how long a rotated-out secret keeps verifying, so the host ERP can
// switch to the new one without dropping webhooks.
const DefaultRotationGrace = 24 * time.Hour

// Secret is one webhook secret. A secret with a zero RetireAt is current; one with RetireAt
// set verifies until then.
type Secret struct {
	Value     string
	CreatedAt time.Time
	RetireAt  time.Time
}

// Connector is where one of the tenant's production systems lives and how to reach it.
type Connector struct {
	BaseURL string
	// Token is the connection's one secret: a bearer token, "user:password" for HTTP Basic,
	// or "clientId:clientSecret" when TokenURL is set (see connector.Config); for NetSuite
	// with a TokenURL, the M2M login's client ID, certificate ID and private key
	// (connector.NetSuiteCredential). It is stored sealed; moving it to a secrets manager
	// is future work.
	Token string
	// TokenURL, when set, is the OAuth 2.0 token endpoint the client credentials in Token
	// are exchanged at (NetSuite, Business Central). Not secret.
	TokenURL string
	// Scope is sent with the client-credentials grant (Business Central's
	// https://api.businesscentral.dynamics.com/.default). Not secret.
	Scope string
}

// Purpose names what a host secret signs. Each purpose has secrets of its own, so a
// leaked webhook secret can neither create a finance approval nor mint an embedded session
// for a user of the host's choosing.
type Purpose string

// Purposes of host secrets. All are Standard Webhooks secrets and rotate alike.
const (
	PurposeIngest   Purpose = "ingest"   // the sync-error webhook
	PurposeFinance  Purpose = "finance"  // finance approval create
	PurposeEmbedded Purpose = "embedded" // embedded-session host bootstrap
)

// FlowSources are the systems that post flow change events, in connector.Systems' order
// (package flow's tests hold the two lists equal; tenant cannot import connector).
var FlowSources = [...]string{"hosterp", "erp2", "crm", "marketing", "shipping"}

// FlowPurpose is the purpose of the secrets a source system signs its flow change events
// with ("flow.crm"): each source has its own, so the holder of one system's secret cannot
// post changes as another system and slip past the ownership manifest.
func FlowPurpose(system string) Purpose { return Purpose("flow." + system) }

// Purposes lists every purpose: the host's three, then one per flow source.
var Purposes = append([]Purpose{PurposeIngest, PurposeFinance, PurposeEmbedded}, flowPurposes()...)

func flowPurposes() []Purpose {
	out := make([]Purpose, len(FlowSources))
	for i, sys := range FlowSources {
		out[i] = FlowPurpose(sys)
	}
	return out
}

// ValidPurpose reports whether p is one of Purposes.
func ValidPurpose(p Purpose) bool { return slices.Contains(Purposes, p) }

// Config is a tenant's configuration.
type Config struct {
	ID       string
	Settings map[string]string
	// WebhookSecrets sign the sync-error webhook (PurposeIngest); FinanceSecrets and
	// EmbeddedSecrets the finance create and the embedded host bootstrap.
	WebhookSecrets  []Secret
	FinanceSecrets  []Secret
	EmbeddedSecrets []Secret
	// FlowSecrets sign each source system's flow change events, by FlowSources' index. A
	// tenant created before they existed has none until one is rotated in.
	FlowSecrets [len(FlowSources)][]Secret
	// Connectors by system name (hosterp, erp2, crm, marketing, shipping).
	Connectors map[string]Connector
	// SystemAliases are the tenant's own names for its systems, as its hosts send them
	// ("Business Central" → "erp2"), over the defaults (aliases.go).
	SystemAliases map[string]string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Version increases with every write; stores use it for optimistic concurrency.
	Version int64
}

// Flag reports whether a setting is exactly the string "true".
func (c Config) Flag(key string) bool { return c.Settings[key] == "true" }

// FeatureEnabled reports whether the sync-error feature acts on this tenant: both flags.
func (c Config) FeatureEnabled() bool { return c.Flag(KeyEnabled) && c.Flag(KeyWebhookEnabled) }

// FinanceEnabled reports whether finance approvals act on this tenant: on unless
// finance_ops.enabled is "false".
func (c Config) FinanceEnabled() bool { return c.Settings[KeyFinanceEnabled] != "false" }

// DisabledFlag names the first flag that is not "true", or "" when both are.
func (c Config) DisabledFlag() string {
	for _, k := range FeatureFlags {
		if !c.Flag(k) {
			return k
		}
	}
	return ""
}

// Secrets returns the secrets of purpose p, for reading and rotating (nil for an unknown
// purpose).
func (c *Config) Secrets(p Purpose) *[]Secret {
	switch p {
	case PurposeIngest:
		return &c.WebhookSecrets
	case PurposeFinance:
		return &c.FinanceSecrets
	case PurposeEmbedded:
		return &c.EmbeddedSecrets
	}
	for i, sys := range FlowSources {
		if p == FlowPurpose(sys) {
			return &c.FlowSecrets[i]
		}
	}
	return nil
}

// ActiveKeys returns the HMAC keys of purpose's secrets that verify at now. A secret that
// does not parse is skipped: it can never verify anything.
func (c Config) ActiveKeys(purpose string, now time.Time) [][]byte {
	secrets := c.Secrets(Purpose(purpose))
	if secrets == nil {
		return nil
	}
	keys := make([][]byte, 0, len(*secrets))
	for _, s := range *secrets {
		if !s.RetireAt.IsZero() && !now.Before(s.RetireAt) {
			continue
		}
		if k, err := webhook.ParseSecret(s.Value); err == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ValidID reports whether id is a well-formed tenant id: lower-case letters, digits, '-' and
// '_', at most 63 characters, starting with a letter or digit.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Store persists tenant configurations.
type Store interface {
	// Get returns ErrNotFound for an unknown tenant.
	Get(ctx context.Context, id string) (Config, error)
	// Create returns ErrExists if the tenant exists.
	Create(ctx context.Context, c Config) error
	// Update writes c if the stored Version is still c.Version (then increments it), else
	// returns ErrConflict; ErrNotFound if the tenant is gone.
	Update(ctx context.Context, c Config) error
	// List returns every tenant, ordered by id.
	List(ctx context.Context) ([]Config, error)
}

// Admin carries out the onboarding operations on a Store.
type Admin struct {
	Store Store
	Now   func() time.Time
	// Keeper opens sealed secrets for Show (nil: shown as stored).
	Keeper Keeper
}

// Show returns tenant id with its secrets opened, for an operator's inspection (which
// prints fingerprints, never values).
func (a Admin) Show(ctx context.Context, id string) (Config, error) {
	c, err := a.Store.Get(ctx, id)
	if err != nil || a.Keeper == nil {
		return c, err
	}
	return c.Opened(ctx, a.Keeper)
}

func (a Admin) now() time.Time {
	if a.Now != nil {
		return a.Now().UTC()
	}
	return time.Now().UTC()
}

// Create adds a tenant with both flags off and one fresh secret per purpose, which it
// returns: the only time they are shown. A non-empty entry of given is used instead of a
// fresh one for its purpose.
func (a Admin) Create(ctx context.Context, id string, given map[Purpose]string) (map[Purpose]string, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("tenant id %q: use 1-63 lower-case letters, digits, '-' or '_'", id)
	}
	now := a.now()
	c := Config{
		ID:        id,
		Settings:  map[string]string{KeyEnabled: "false", KeyWebhookEnabled: "false"},
		CreatedAt: now,
		UpdatedAt: now,
	}
	out := map[Purpose]string{}
	for _, p := range Purposes {
		secret, err := secretOrNew(given[p])
		if err != nil {
			return nil, fmt.Errorf("%s secret: %w", p, err)
		}
		*c.Secrets(p) = []Secret{{Value: secret, CreatedAt: now}}
		out[p] = secret
	}
	if err := a.Store.Create(ctx, c); err != nil {
		return nil, err
	}
	return out, nil
}

// Set changes one setting. Keys other than KnownSettings are refused so a typo cannot
// silently leave a flag off.
func (a Admin) Set(ctx context.Context, id, key, value string) error {
	known := false
	for _, k := range KnownSettings {
		known = known || k == key
	}
	if !known {
		return fmt.Errorf("unknown setting %q (known: %v)", key, KnownSettings)
	}
	// The operator's command may name loopback origins: it also sets up local stacks.
	if err := CheckSetting(key, value, true); err != nil {
		return fmt.Errorf("setting %s: %w", key, err)
	}
	return a.update(ctx, id, func(c *Config) error {
		c.Settings[key] = value
		return nil
	})
}

// SetConnector configures (or, with an empty base URL, removes) one of the tenant's
// production systems.
func (a Admin) SetConnector(ctx context.Context, id, system, baseURL, token string) error {
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("base URL %q: want http(s)://host[/path]", baseURL)
		}
	}
	return a.update(ctx, id, func(c *Config) error {
		if c.Connectors == nil {
			c.Connectors = map[string]Connector{}
		}
		if baseURL == "" {
			delete(c.Connectors, system)
		} else {
			// The OAuth settings stay: a rotated secret or a moved base URL keeps its grant.
			prev := c.Connectors[system]
			c.Connectors[system] = Connector{BaseURL: baseURL, Token: token, TokenURL: prev.TokenURL, Scope: prev.Scope}
		}
		return nil
	})
}

// RotateSecret makes a fresh secret of purpose current (or secret, if given) and returns
// it. The previous current secret keeps verifying for grace; anything older is dropped, so
// at most two secrets of a purpose verify at once.
func (a Admin) RotateSecret(ctx context.Context, id string, purpose Purpose, secret string, grace time.Duration) (string, error) {
	if !ValidPurpose(purpose) {
		return "", fmt.Errorf("unknown secret purpose %q (known: %v)", purpose, Purposes)
	}
	secret, err := secretOrNew(secret)
	if err != nil {
		return "", err
	}
	err = a.update(ctx, id, func(c *Config) error {
		secrets := c.Secrets(purpose)
		*secrets = Rotate(*secrets, secret, a.now(), grace)
		return nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// Rotate returns secrets with next current, the previous current one retiring after grace,
// and every other secret dropped.
func Rotate(secrets []Secret, next string, now time.Time, grace time.Duration) []Secret {
	out := []Secret{{Value: next, CreatedAt: now}}
	// The newest still-verifying secret is the one the host uses now.
	sorted := append([]Secret(nil), secrets...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreatedAt.After(sorted[j].CreatedAt) })
	for _, s := range sorted {
		if s.RetireAt.IsZero() || now.Before(s.RetireAt) {
			if grace > 0 {
				s.RetireAt = now.Add(grace)
				if s.RetireAt.After(now) {
					out = append(out, s)
				}
			}
			break
		}
	}
	return out
}

// Update applies fn to the tenant's stored config with optimistic concurrency: several
// changes land together or not at all (the settings API's PATCH). fn may run more than
// once when another writer gets there first.
func (a Admin) Update(ctx context.Context, id string, fn func(*Config) error) error {
	return a.update(ctx, id, fn)
}

// update applies fn to the stored config with optimistic concurrency, retrying a few times
// when another writer got there first.
func (a Admin) update(ctx context.Context, id string, fn func(*Config) error) error {
	for attempt := 0; ; attempt++ {
		c, err := a.Store.Get(ctx, id)
		if err != nil {
			return err
		}
		if c.Settings == nil {
			c.Settings = map[string]string{}
		}
		if err := fn(&c); err != nil {
			return err
		}
		c.UpdatedAt = a.now()
		err = a.Store.Update(ctx, c)
		if !errors.Is(err, ErrConflict) || attempt == 4 {
			return err
		}
	}
}

func secretOrNew(secret string) (string, error) {
	if secret == "" {
		return webhook.NewSecret()
	}
	if _, err := webhook.ParseSecret(secret); err != nil {
		return "", fmt.Errorf("secret: %w", err)
	}
	return secret, nil
}
