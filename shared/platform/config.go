package platform

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// EnvAuditPseudonymKey names the variable behind Config.AuditPseudonymKey.
const EnvAuditPseudonymKey = "AUDIT_PSEUDONYM_KEY"

// EnvConnectorsAllowLocal names the variable behind Config.ConnectorsAllowLocal.
const EnvConnectorsAllowLocal = "CONNECTORS_ALLOW_LOCAL"

// Config is what the environment tells every function. A feature reads its own settings
// (EnvDuration) in its wiring.
type Config struct {
	Stage string
	// Tables are the physical table names by blueprint name.
	Tables map[string]string
	// LoopWindow is how far back the guard looks for a reciprocal write.
	LoopWindow time.Duration
	// ConnectorTimeout bounds one attempt of a connector call.
	ConnectorTimeout time.Duration
	// ConnectorsAllowLocal lets connectors reach loopback (the local fakes), and nothing
	// else netguard blocks: EnvConnectorsAllowLocal=true, which only the local stack and the tests
	// set, and no CDK stack does (a template test holds that).
	ConnectorsAllowLocal bool
	// AuditPseudonymKey keys the pseudonyms of masked audit actors (audit.Log): at least
	// 32 bytes, the same for every function of a stage, so one person has one pseudonym.
	AuditPseudonymKey []byte
	// AuditPseudonymSecretARN holds the key where AuditPseudonymKey is not set: every
	// deployed stage has one secret, read when a masked actor is first audited.
	AuditPseudonymSecretARN string
	WebhookTolerance        time.Duration
	// SecretsKeyARN is the KMS key that seals tenants' secrets (TENANT_SECRETS_KEY_ARN);
	// LocalSealingKey the local stand-in (LOCAL_SEALING_KEY). With neither, secrets are
	// stored as given.
	SecretsKeyARN   string
	LocalSealingKey *sealed.LocalWrapper
	// TenantCacheTTL is how long host-signed routes may trust a cached tenant
	// configuration; zero reads the store on every request.
	TenantCacheTTL time.Duration
	// EmbeddedTokenTTL and EmbeddedContextTTL are the lifetimes of embedded service tokens
	// and module contexts.
	EmbeddedTokenTTL, EmbeddedContextTTL time.Duration
	LogLevel                             slog.Level
	// JWT configures operator token verification; an empty Issuer leaves authenticated
	// routes answering 503 identity_unavailable.
	JWT identity.JWTConfig
	// CORSOrigins may call the API from a browser besides its own origin (the local
	// stack; in AWS the HTTP API answers CORS itself).
	CORSOrigins []string
}

// Table returns the physical name of the blueprint table t.
func (c Config) Table(t blueprint.Table) string { return c.Tables[t.Name] }

// ConfigFromEnv reads Config. Table names default to the stage's physical names, so a
// developer needs to set only STAGE; in AWS the CDK stack sets every variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{Stage: getenv("STAGE"), Tables: map[string]string{}}
	if c.Stage == "" {
		c.Stage = "dev"
	}
	for _, t := range blueprint.Tables {
		c.Tables[t.Name] = getenv(t.EnvVar)
		if c.Tables[t.Name] == "" {
			c.Tables[t.Name] = blueprint.PhysicalName(c.Stage, t.Name)
		}
	}
	c.SecretsKeyARN = getenv("TENANT_SECRETS_KEY_ARN")
	if v := getenv("LOCAL_SEALING_KEY"); v != "" {
		key, err := sealed.ParseLocalKey(v)
		if err != nil {
			return Config{}, fmt.Errorf("LOCAL_SEALING_KEY: %w", err)
		}
		c.LocalSealingKey = key
	}
	c.ConnectorsAllowLocal = getenv(EnvConnectorsAllowLocal) == "true"
	c.AuditPseudonymKey = []byte(getenv(EnvAuditPseudonymKey))
	c.AuditPseudonymSecretARN = getenv(EnvAuditPseudonymSecret)
	if len(c.AuditPseudonymKey) == 0 && c.AuditPseudonymSecretARN == "" && c.LocalSealingKey != nil {
		// make run: a key of its own, derived from the local sealing key it keeps in .local.
		mac := hmac.New(sha256.New, []byte(getenv("LOCAL_SEALING_KEY")))
		mac.Write([]byte("audit pseudonyms"))
		c.AuditPseudonymKey = mac.Sum(nil)
	}
	if n := len(c.AuditPseudonymKey); n > 0 && n < 32 {
		return Config{}, fmt.Errorf("%s: want at least 32 characters", EnvAuditPseudonymKey)
	}
	c.TenantCacheTTL = 10 * time.Second
	if v := getenv("TENANT_CACHE_TTL"); v != "" {
		ttl, err := time.ParseDuration(v)
		if err != nil || ttl < 0 {
			return Config{}, fmt.Errorf("TENANT_CACHE_TTL=%q: want a duration such as 10s, or 0 to disable", v)
		}
		c.TenantCacheTTL = ttl
	}
	var err error
	for _, d := range []struct {
		env string
		dst *time.Duration
		def time.Duration
	}{
		{"WEBHOOK_TOLERANCE", &c.WebhookTolerance, webhook.DefaultTolerance},
		{"EMBEDDED_TOKEN_TTL", &c.EmbeddedTokenTTL, session.DefaultTokenTTL},
		{"LOOP_WINDOW", &c.LoopWindow, governance.DefaultLoopWindow},
		{"CONNECTOR_TIMEOUT", &c.ConnectorTimeout, connector.DefaultTimeout},
		{"EMBEDDED_CONTEXT_TTL", &c.EmbeddedContextTTL, session.DefaultContextTTL},
	} {
		if *d.dst, err = EnvDuration(getenv, d.env, d.def); err != nil {
			return Config{}, err
		}
	}
	c.JWT = identity.JWTConfig{Issuer: getenv("JWT_ISSUER"), Audience: getenv("JWT_AUDIENCE"), JWKSURL: getenv("JWT_JWKS_URL"),
		ValidTenant: tenant.ValidID}
	if v := getenv("JWT_TOKEN_TYPES"); v != "" {
		c.JWT.TokenTypes = strings.Split(v, ",")
	}
	if c.JWT.Audience == "" {
		c.JWT.Audience = "syncassist"
	}
	if c.JWT.JWKSURL == "" && c.JWT.Issuer != "" {
		c.JWT.JWKSURL = strings.TrimSuffix(c.JWT.Issuer, "/") + "/.well-known/jwks.json"
	}
	if c.CORSOrigins, err = httpapi.ParseOrigins(getenv("CORS_ALLOWED_ORIGINS")); err != nil {
		return Config{}, fmt.Errorf("CORS_ALLOWED_ORIGINS: %w", err)
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return Config{}, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", v)
		}
	}
	return c, nil
}

// EnvDuration reads the positive duration env, or def when it is unset.
func EnvDuration(getenv func(string) string, env string, def time.Duration) (time.Duration, error) {
	v := getenv(env)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 5m", env, v)
	}
	return d, nil
}
