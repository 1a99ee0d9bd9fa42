// Package settings is the tenant settings feature: an admin reads and changes the tenant's
// flags, connectors, manifest overrides and host secrets over HTTP, and the onboarding
// command drives the same operations. Every change is audited with the actor and the
// before and after; secrets and connector credentials are write-only (never returned, never
// audited, stored sealed) and a rotated secret is shown once.
package settings

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Manifests are the tenant manifest overrides; *governance.TenantManifests implements it.
type Manifests interface {
	Manifest(ctx context.Context, tenantID string) (governance.Manifest, error)
	SetOverrides(ctx context.Context, tenantID string, entries []governance.Entry) error
}

// Overrides reads a tenant's stored overrides; the governance table's store implements it.
type Overrides interface {
	Overrides(ctx context.Context, tenantID string) ([]governance.Entry, error)
}

// Service holds the settings operations.
type Service struct {
	Admin     tenant.Admin
	Manifests Manifests
	Overrides Overrides
	Audit     *audit.Log
	// LocalConnectors allows http and loopback addresses in connector base URLs: the fakes
	// of the local stack and the tests. Never set in a deployed stage.
	LocalConnectors bool
	Resolver        Resolver
	// Checker checks a connector's connection (connector_check.go).
	Checker Checker
}

// View is a tenant's settings as an admin sees them: no secret value, no credential.
type View struct {
	TenantID          string                   `json:"tenantId"`
	Settings          map[string]string        `json:"settings"`
	Connectors        map[string]ConnectorView `json:"connectors"`
	Secrets           map[string]SecretsView   `json:"secrets"`
	ManifestOverrides []OverrideView           `json:"manifestOverrides"`
	UpdatedAt         time.Time                `json:"updatedAt"`
	// CredentialsCleared, in a change's answer only, names the connectors whose stored
	// credential the change deleted because it moved their base or token URL.
	CredentialsCleared []string `json:"credentialsCleared,omitempty"`
}

// ConnectorView is one connector without its credential.
type ConnectorView struct {
	BaseURL  string `json:"baseUrl"`
	HasToken bool   `json:"hasToken"`
	// TokenURL and Scope are the OAuth 2.0 client-credentials grant's, when the credential
	// is "clientId:clientSecret" exchanged there (NetSuite, Business Central).
	TokenURL string `json:"tokenUrl,omitempty"`
	Scope    string `json:"scope,omitempty"`
}

// SecretsView says when a purpose's current secret was made and when retiring ones stop.
type SecretsView struct {
	CurrentSince time.Time   `json:"currentSince"`
	RetiringAt   []time.Time `json:"retiringAt"`
}

// OverrideView is one manifest override entry.
type OverrideView struct {
	Entity string            `json:"entity"`
	Field  string            `json:"field,omitempty"`
	Owner  connector.System  `json:"owner"`
	Policy governance.Policy `json:"policy"`
}

// Get returns the tenant's settings.
func (s *Service) Get(ctx context.Context, tenantID string) (View, error) {
	c, err := s.Admin.Store.Get(ctx, tenantID)
	if err != nil {
		return View{}, err
	}
	o, err := s.Overrides.Overrides(ctx, tenantID)
	if err != nil {
		return View{}, fmt.Errorf("manifest overrides: %w", err)
	}
	return viewOf(c, o), nil
}

func viewOf(c tenant.Config, overrides []governance.Entry) View {
	v := View{TenantID: c.ID, Settings: map[string]string{}, Connectors: map[string]ConnectorView{},
		Secrets: map[string]SecretsView{}, ManifestOverrides: []OverrideView{}, UpdatedAt: c.UpdatedAt}
	for k, val := range c.Settings {
		if slices.Contains(tenant.KnownSettings, k) {
			v.Settings[k] = val
		}
	}
	for sys, cc := range c.Connectors {
		v.Connectors[sys] = ConnectorView{BaseURL: cc.BaseURL, HasToken: cc.Token != "", TokenURL: cc.TokenURL, Scope: cc.Scope}
	}
	for _, p := range tenant.Purposes {
		sv := SecretsView{RetiringAt: []time.Time{}}
		for _, sec := range *c.Secrets(p) {
			if sec.RetireAt.IsZero() {
				sv.CurrentSince = sec.CreatedAt
			} else {
				sv.RetiringAt = append(sv.RetiringAt, sec.RetireAt)
			}
		}
		v.Secrets[string(p)] = sv
	}
	for _, e := range overrides {
		v.ManifestOverrides = append(v.ManifestOverrides, OverrideView{e.Entity, e.Field, e.Owner, e.Policy})
	}
	return v
}

// Patch is a change of settings and connectors, applied together or not at all. A null
// connector removes it; a connector without a token keeps the stored one, unless the
// change moves its base or token URL: a credential is never sent to an address other than
// the one it was given for, so moving it deletes the credential (see moveConnector).
type Patch struct {
	Settings   map[string]string          `json:"settings,omitempty"`
	Connectors map[string]*ConnectorPatch `json:"connectors,omitempty"`
}

// ConnectorPatch configures one system. Token is write-only. A field left out keeps its
// stored value; an empty TokenURL sends the token as it is again.
type ConnectorPatch struct {
	BaseURL  string  `json:"baseUrl"`
	Token    *string `json:"token,omitempty"`
	TokenURL *string `json:"tokenUrl,omitempty"`
	Scope    *string `json:"scope,omitempty"`
}

// FieldError is one refused part of a change.
type FieldError struct{ Field, Message string }

// InvalidError lists every refused part of a change; nothing was changed.
type InvalidError struct{ Fields []FieldError }

func (e *InvalidError) Error() string {
	return fmt.Sprintf("settings: %d invalid field(s)", len(e.Fields))
}

// ScopeError is a change an embedded session may not make: from inside the host ERP only
// the feature switches (the two flags and finance approvals) change. Connectors carry credentials and reach out of the service, and
// the embedded roles setting would let a session widen what sessions may do.
type ScopeError struct{ Fields []string }

func (e *ScopeError) Error() string {
	return fmt.Sprintf("settings: %s cannot be changed from an embedded session", strings.Join(e.Fields, ", "))
}

// embeddedScope returns what of p an embedded caller may not change.
func embeddedScope(who identity.Identity, p Patch) error {
	if who.Source != identity.SourceUser {
		return nil
	}
	var out []string
	for k := range p.Settings {
		if !slices.Contains(tenant.FeatureFlags, k) && k != tenant.KeyFinanceEnabled {
			out = append(out, "settings."+k)
		}
	}
	for sys := range p.Connectors {
		out = append(out, "connectors."+sys)
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return &ScopeError{Fields: out}
}

// Apply validates p whole, then changes the tenant in one conditional write and audits it.
func (s *Service) Apply(ctx context.Context, who identity.Identity, p Patch) (View, error) {
	if err := embeddedScope(who, p); err != nil {
		return View{}, err
	}
	if err := s.validate(ctx, p); err != nil {
		return View{}, err
	}
	var before, after tenant.Config
	var cleared []string
	err := s.Admin.Update(ctx, who.TenantID, func(c *tenant.Config) error {
		before, cleared = clone(*c), []string{}
		for k, v := range p.Settings {
			c.Settings[k] = v
		}
		if len(p.Connectors) > 0 && c.Connectors == nil {
			c.Connectors = map[string]tenant.Connector{}
		}
		for sys, cp := range p.Connectors {
			if cp == nil {
				delete(c.Connectors, sys)
				continue
			}
			next, dropped := moveConnector(c.Connectors[sys], cp)
			if dropped {
				cleared = append(cleared, sys)
			}
			c.Connectors[sys] = next
		}
		after = *c
		return nil
	})
	if err != nil {
		return View{}, err
	}
	slices.Sort(cleared)
	s.audit(ctx, who, "settings.update", "settings", map[string]any{
		"before": viewOf(before, nil), "after": viewOf(after, nil), "tokensChanged": tokensChanged(p), "credentialsCleared": cleared})
	v, err := s.Get(ctx, who.TenantID)
	if len(cleared) > 0 {
		v.CredentialsCleared = cleared
	}
	return v, err
}

// moveConnector applies cp to the stored connector prev. A credential belongs to the
// address it was given for: when cp moves the base URL or the token URL and brings no
// credential of its own, the stored one is deleted (dropped), so that an admin cannot
// point a connector at a server of theirs and have the service send it the credential.
func moveConnector(prev tenant.Connector, cp *ConnectorPatch) (next tenant.Connector, dropped bool) {
	next = prev
	next.BaseURL = cp.BaseURL
	for _, f := range []struct{ to, from *string }{{&next.Token, cp.Token}, {&next.TokenURL, cp.TokenURL}, {&next.Scope, cp.Scope}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	moved := next.BaseURL != prev.BaseURL || next.TokenURL != prev.TokenURL
	if moved && cp.Token == nil && prev.Token != "" {
		next.Token = ""
		return next, true
	}
	return next, false
}

func (s *Service) validate(ctx context.Context, p Patch) error {
	var errs []FieldError
	for k, v := range p.Settings {
		if !slices.Contains(tenant.KnownSettings, k) {
			errs = append(errs, FieldError{"settings." + k, "is not a known setting"})
		} else if len(v) > 4096 {
			errs = append(errs, FieldError{"settings." + k, "must be at most 4096 characters"})
		} else if err := tenant.CheckSetting(k, v, s.LocalConnectors); err != nil {
			errs = append(errs, FieldError{"settings." + k, err.Error()})
		}
	}
	for sys, cp := range p.Connectors {
		switch {
		case !connector.System(sys).Known():
			errs = append(errs, FieldError{"connectors." + sys, "is not a system"})
		case cp == nil:
		default:
			if err := CheckBaseURL(ctx, cp.BaseURL, s.LocalConnectors, s.Resolver); err != nil {
				errs = append(errs, FieldError{"connectors." + sys + ".baseUrl", err.Error()})
			}
			// The token endpoint is called with the client secret: it gets the same checks.
			if cp.TokenURL != nil && *cp.TokenURL != "" {
				if err := CheckBaseURL(ctx, *cp.TokenURL, s.LocalConnectors, s.Resolver); err != nil {
					errs = append(errs, FieldError{"connectors." + sys + ".tokenUrl", err.Error()})
				}
			}
		}
	}
	errs = append(errs, netsuiteCredentials(p)...)
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		return &InvalidError{Fields: errs}
	}
	return nil
}

func tokensChanged(p Patch) []string {
	out := []string{}
	for sys, cp := range p.Connectors {
		if cp != nil && cp.Token != nil {
			out = append(out, sys)
		}
	}
	slices.Sort(out)
	return out
}

func clone(c tenant.Config) tenant.Config {
	out := c
	out.Settings = map[string]string{}
	for k, v := range c.Settings {
		out.Settings[k] = v
	}
	out.Connectors = map[string]tenant.Connector{}
	for k, v := range c.Connectors {
		out.Connectors[k] = v
	}
	return out
}

// PutOverrides replaces the tenant's manifest overrides (validated against the manifest's
// shape, and merged with the default, by governance) and audits the change.
func (s *Service) PutOverrides(ctx context.Context, who identity.Identity, entries []OverrideView) (View, error) {
	before, err := s.Overrides.Overrides(ctx, who.TenantID)
	if err != nil {
		return View{}, err
	}
	next := make([]governance.Entry, len(entries))
	for i, e := range entries {
		next[i] = governance.Entry{Entity: e.Entity, Field: e.Field, Owner: e.Owner, Policy: e.Policy}
	}
	if err := s.Manifests.SetOverrides(ctx, who.TenantID, next); err != nil {
		if errors.Is(err, governance.ErrInvalidManifest) {
			return View{}, &InvalidError{Fields: []FieldError{{"entries", err.Error()}}}
		}
		return View{}, err
	}
	s.audit(ctx, who, "settings.manifest_overrides", "manifest", map[string]any{
		"before": viewOf(tenant.Config{}, before).ManifestOverrides, "after": entries})
	return s.Get(ctx, who.TenantID)
}

// Rotation is a rotated secret: shown once.
type Rotation struct {
	Purpose tenant.Purpose `json:"purpose"`
	Secret  string         `json:"secret"`
	// PreviousRetiresAt is when the secret rotated out stops verifying.
	PreviousRetiresAt time.Time `json:"previousRetiresAt"`
}

// Rotate makes a fresh secret of purpose current; the previous one keeps verifying for
// grace (the API's is tenant.DefaultRotationGrace, as Standard Webhooks rotation does).
func (s *Service) Rotate(ctx context.Context, who identity.Identity, purpose tenant.Purpose, grace time.Duration) (Rotation, error) {
	if !tenant.ValidPurpose(purpose) {
		return Rotation{}, &InvalidError{Fields: []FieldError{{"purpose", fmt.Sprintf("must be one of %v", tenant.Purposes)}}}
	}
	secret, err := s.Admin.RotateSecret(ctx, who.TenantID, purpose, "", grace)
	if err != nil {
		return Rotation{}, err
	}
	r := Rotation{Purpose: purpose, Secret: secret, PreviousRetiresAt: s.now().Add(grace)}
	s.audit(ctx, who, "settings.secret_rotate", "secret/"+string(purpose),
		map[string]any{"purpose": purpose, "previousRetiresAt": r.PreviousRetiresAt})
	return r, nil
}

func (s *Service) now() time.Time {
	if s.Admin.Now != nil {
		return s.Admin.Now().UTC()
	}
	return time.Now().UTC()
}

// audit records a settings change that is made already: a failed audit write is logged,
// not reported, since answering that the change failed would be untrue.
func (s *Service) audit(ctx context.Context, who identity.Identity, key, resource string, details map[string]any) {
	if s.Audit == nil {
		return
	}
	err := s.Audit.Write(ctx, audit.Entry{Actor: who, ActionType: audit.TypeSettings, ActionKey: key,
		Result: audit.ResultSuccess, Resource: resource, Details: details})
	if err != nil {
		httpapi.Logger(ctx).Error("settings change not audited", "key", key, "error", err)
	}
}
