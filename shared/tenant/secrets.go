package tenant

import (
	"context"
	"fmt"
	"maps"
)

// Keeper seals and opens a tenant's secrets at rest (package sealed's Sealer). Stores seal
// on write; only the code that must use a secret opens it (host signatures, connectors),
// so a function that reads a tenant for its settings never holds a secret in the clear,
// and cannot open one without the key keeper's grant.
type Keeper interface {
	Seal(ctx context.Context, plain string, aad map[string]string) (string, error)
	Open(ctx context.Context, v string, aad map[string]string) (string, error)
}

// encryptionContext binds a sealed value to its tenant: it cannot be opened as another's.
func (c Config) encryptionContext() map[string]string { return map[string]string{"tenant_id": c.ID} }

// Sealed returns c with every secret value and connector token sealed by k.
func (c Config) Sealed(ctx context.Context, k Keeper) (Config, error) {
	return c.mapSecrets(func(v string) (string, error) { return k.Seal(ctx, v, c.encryptionContext()) })
}

// Opened returns c with every secret value and connector token opened by k.
func (c Config) Opened(ctx context.Context, k Keeper) (Config, error) {
	return c.mapSecrets(func(v string) (string, error) { return k.Open(ctx, v, c.encryptionContext()) })
}

// OpenedToken returns the token of connector system, opened by k.
func (c Config) OpenedToken(ctx context.Context, k Keeper, system string) (string, error) {
	return k.Open(ctx, c.Connectors[system].Token, c.encryptionContext())
}

// mapSecrets returns a copy of c with f applied to each secret value and connector token.
func (c Config) mapSecrets(f func(string) (string, error)) (Config, error) {
	for _, p := range Purposes {
		in := *c.Secrets(p)
		out := make([]Secret, len(in))
		for i, s := range in {
			v, err := f(s.Value)
			if err != nil {
				return Config{}, fmt.Errorf("tenant %s, %s secret: %w", c.ID, p, err)
			}
			s.Value = v
			out[i] = s
		}
		*c.Secrets(p) = out
	}
	if c.Connectors != nil {
		conns := maps.Clone(c.Connectors)
		for sys, cc := range conns {
			v, err := f(cc.Token)
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
