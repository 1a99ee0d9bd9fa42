// Package identity owns who is calling: the verified JWT principal (the spec's req.auth),
// the embedded-session principal (req.user), and the one rule that derives the identity used
// for attribution from them: auth if present, else user, never a mix of fields.
package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Roles a principal may hold.
const (
	RoleOperator = "operator"
	RoleApprover = "approver"
	RoleAdmin    = "admin"
)

// Source says where an identity came from.
type Source string

// Identity sources.
const (
	SourceAuth Source = "auth" // a verified operator JWT
	SourceUser Source = "user" // an embedded session
	// SourceTenant is background work acting for a tenant (the worker, the reconcile);
	// it carries the triggering principal when there is one, never a system pseudo-user.
	SourceTenant Source = "tenant"
)

// Principal is one authenticated caller as its authenticator saw it.
type Principal struct {
	Subject  string
	TenantID string
	Roles    []string
	// SessionID is the embedded session (user principals only).
	SessionID string
	// Module is the embedded module the context is bound to (user principals only).
	Module string
	// Email and Username are the token's email and preferred_username claims (JWT
	// principals only; empty when absent). They are other names of the same person, which
	// a host ERP may have recorded instead of the subject (four eyes compares them all).
	Email    string
	Username string
}

// Identity is what AI calls, audit records and authorization use. Every field comes from
// one Principal (or, for background work, from the tenant and the trigger).
type Identity struct {
	TenantID  string   `json:"tenantId"`
	Actor     string   `json:"actor"`
	Roles     []string `json:"roles,omitempty"`
	Source    Source   `json:"source"`
	SessionID string   `json:"sessionId,omitempty"`
	// Aliases are the principal's other names (e-mail, preferred username). They are
	// never serialised: audit records name the actor only (pseudonymised at rest).
	Aliases []string `json:"-"`
}

// Is reports whether name, as another system recorded it, names this identity: the
// actor or one of its aliases, compared case-insensitively and without surrounding
// spaces. An empty name names no one, so a missing requester never matches.
func (i Identity) Is(name string) bool {
	name = strings.TrimSpace(name)
	if name == "" {
		return false
	}
	if strings.EqualFold(name, strings.TrimSpace(i.Actor)) {
		return true
	}
	for _, a := range i.Aliases {
		if strings.EqualFold(name, strings.TrimSpace(a)) {
			return true
		}
	}
	return false
}

// NameKeys are fingerprints of every name of the identity (its actor and aliases,
// normalised as Is compares them). A record that must later tell whether a caller is the
// same person (four eyes) keeps them beside the actor: the same person signs in to the
// console under a login id with their e-mail as an alias, and to the embedded surface
// under the host's user id, often that e-mail, so one name alone misses them. Kept as
// digests, not the aliases, which are personal data the records otherwise do not hold.
func (i Identity) NameKeys() []string {
	keys := []string{}
	for _, n := range append([]string{i.Actor}, i.Aliases...) {
		if k := NameKey(n); k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// NameKey is the fingerprint of one name ("" for an empty one).
func NameKey(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("identity-name\x00" + name))
	return hex.EncodeToString(sum[:12])
}

// IsOneOf reports whether the identity is the person a record names: by name (Is), or by
// any of the record's NameKeys (records written before keys were have none).
func (i Identity) IsOneOf(name string, keys []string) bool {
	if i.Is(name) {
		return true
	}
	for _, k := range i.NameKeys() {
		if slices.Contains(keys, k) {
			return true
		}
	}
	return false
}

// HasRole reports whether the identity holds role. Roles nest: admin holds every role,
// and an approver may do everything an operator may (it approves what operators triage).
func (i Identity) HasRole(role string) bool {
	if slices.Contains(i.Roles, role) || slices.Contains(i.Roles, RoleAdmin) {
		return true
	}
	return role == RoleOperator && slices.Contains(i.Roles, RoleApprover)
}

// Attributable reports whether the identity names a real tenant, which AI calls and audit
// records require.
func (i Identity) Attributable() bool { return i.TenantID != "" }

// Derive returns the identity from auth if it is set, else from user; ok is false when
// neither is. Fields are never mixed across the two.
func Derive(auth, user *Principal) (Identity, bool) {
	switch {
	case auth != nil:
		return fromPrincipal(*auth, SourceAuth), true
	case user != nil:
		return fromPrincipal(*user, SourceUser), true
	}
	return Identity{}, false
}

func fromPrincipal(p Principal, s Source) Identity {
	id := Identity{TenantID: p.TenantID, Actor: p.Subject, Roles: slices.Clone(p.Roles), Source: s}
	for _, a := range []string{p.Email, p.Username} {
		if a != "" {
			id.Aliases = append(id.Aliases, a)
		}
	}
	if s == SourceUser {
		id.SessionID = p.SessionID
	}
	return id
}

// ForTenant is the identity of background work for a tenant. trigger names the principal
// or event that caused it ("webhook:msg_…", "schedule:reconcile"), for the audit trail.
func ForTenant(tenantID, trigger string) Identity {
	return Identity{TenantID: tenantID, Actor: trigger, Source: SourceTenant}
}

type authKey struct{}
type userKey struct{}

// WithAuth returns ctx carrying the verified JWT principal.
func WithAuth(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, authKey{}, &p)
}

// WithUser returns ctx carrying the embedded-session principal.
func WithUser(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, userKey{}, &p)
}

// Auth returns the JWT principal of ctx, or nil.
func Auth(ctx context.Context) *Principal {
	p, _ := ctx.Value(authKey{}).(*Principal)
	return p
}

// User returns the embedded-session principal of ctx, or nil.
func User(ctx context.Context) *Principal {
	p, _ := ctx.Value(userKey{}).(*Principal)
	return p
}

// FromContext derives the identity of a request (Derive over Auth and User).
func FromContext(ctx context.Context) (Identity, bool) {
	return Derive(Auth(ctx), User(ctx))
}
