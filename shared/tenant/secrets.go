package tenant

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Keeper seals and opens a tenant's secrets at rest (package sealed's Sealer). Stores seal
// on write; only the code that must use a secret opens it (host signatures, connectors),
// so a function that reads a tenant for its settings never holds a secret in the clear,
// and cannot open one without the key keeper's grant.
type Keeper interface {
	Seal(ctx context.Context, plain string, aad map[string]string) (string, error)
	Open(ctx context.Context, v string, aad map[string]string) (string, error)
}

// PurposeConnectors is the encryption purpose of connector credentials. It is no host
// secret purpose (not in Purposes): it only keeps the credentials apart from the secrets.
const PurposeConnectors Purpose = "connectors"

// EncryptionContext binds a sealed value to its tenant and purpose: it cannot be opened as
// another tenant's, nor as another purpose's, and the key keeper's grants can be
// conditioned on the purpose (a function opens only the purposes it serves).
func (c Config) EncryptionContext(p Purpose) map[string]string {
	return map[string]string{"tenant_id": c.ID, "purpose": string(p)}
}

// legacyContext is what values were sealed under before purposes had contexts of their
// own. Such a value still opens (Admin.Reseal seals it again under its purpose).
func (c Config) legacyContext() map[string]string { return map[string]string{"tenant_id": c.ID} }

// open opens v sealed for purpose p, or, failing that, under the legacy context.
func (c Config) open(ctx context.Context, k Keeper, v string, p Purpose) (string, error) {
	plain, err := k.Open(ctx, v, c.EncryptionContext(p))
	if err == nil {
		return plain, nil
	}
	if plain, lerr := k.Open(ctx, v, c.legacyContext()); lerr == nil {
		return plain, nil
	}
	return "", err
}

// Sealed returns c with every secret value and connector token sealed by k, each under its
// purpose's context.
func (c Config) Sealed(ctx context.Context, k Keeper) (Config, error) {
	return c.mapSecrets(nil, func(v string, p Purpose) (string, error) { return k.Seal(ctx, v, c.EncryptionContext(p)) })
}

// Opened returns c with every secret value and connector token opened by k.
func (c Config) Opened(ctx context.Context, k Keeper) (Config, error) {
	return c.mapSecrets(nil, func(v string, p Purpose) (string, error) { return c.open(ctx, k, v, p) })
}

// OpenedFor returns c with the secrets of purposes opened by k and everything else left
// as stored: a function opens only what it serves, which is all its key grant allows.
func (c Config) OpenedFor(ctx context.Context, k Keeper, purposes ...Purpose) (Config, error) {
	return c.mapSecrets(purposes, func(v string, p Purpose) (string, error) { return c.open(ctx, k, v, p) })
}

// OpenedToken returns the token of connector system, opened by k.
func (c Config) OpenedToken(ctx context.Context, k Keeper, system string) (string, error) {
	return c.open(ctx, k, c.Connectors[system].Token, PurposeConnectors)
}

// mapSecrets returns a copy of c with f applied to each secret value and connector token
// of purposes (nil: all of them).
func (c Config) mapSecrets(purposes []Purpose, f func(string, Purpose) (string, error)) (Config, error) {
	want := func(p Purpose) bool { return purposes == nil || slices.Contains(purposes, p) }
	for _, p := range Purposes {
		in := *c.Secrets(p)
		out := slices.Clone(in)
		for i, s := range in {
			if !want(p) {
				break
			}
			v, err := f(s.Value, p)
			if err != nil {
				return Config{}, fmt.Errorf("tenant %s, %s secret: %w", c.ID, p, err)
			}
			out[i].Value = v
		}
		*c.Secrets(p) = out
	}
	if c.Connectors != nil && want(PurposeConnectors) {
		conns := maps.Clone(c.Connectors)
		for sys, cc := range conns {
			v, err := f(cc.Token, PurposeConnectors)
			if err != nil {
				return Config{}, fmt.Errorf("tenant %s, %s token: %w", c.ID, sys, err)
			}
			cc.Token = v
			conns[sys] = cc
		}
		c.Connectors = conns
	}
	return c, nil
}

// errNothingToReseal ends a Reseal without a write.
var errNothingToReseal = errors.New("tenant: nothing to reseal")

// Reseal seals again, each under its purpose's context, the tenant's values sealed before
// purposes had contexts of their own, and returns how many there were (ResealKinds).
func (a Admin) Reseal(ctx context.Context, id string) (int, error) {
	n, err := a.ResealKinds(ctx, id)
	return n.Total(), err
}
