package tenant

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Resealing. Values sealed before each purpose had an encryption context of its own carry
// the tenant id alone (legacyContext). The key's Decrypt grants open them only while their
// purpose condition is StringEqualsIfExists, which also opens any value sealed without a
// purpose to every function with a grant. ResealAll moves every such value to its
// purpose's context, so that the grants can require the purpose (StringEquals; the
// stack's kmsRequirePurpose), and Pending says how many are left.
//
// Where sealed values live: all of them are in the tenant's configuration item, each
// with a known purpose: the host secrets by their purpose (Purposes: ingest, finance,
// embedded, flow.<system>) and the connector credentials under PurposeConnectors
// (mapSecrets walks both). Nothing else is sealed with the tenant secrets key.

// Kinds counts values by kind: a host secret purpose, or PurposeConnectors.
type Kinds map[Purpose]int

// Total is the count over every kind.
func (k Kinds) Total() int {
	n := 0
	for _, c := range k {
		n += c
	}
	return n
}

// Sorted are the kinds counted, in a fixed order, for reports.
func (k Kinds) Sorted() []Purpose {
	out := make([]Purpose, 0, len(k))
	for p, n := range k {
		if n > 0 {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// legacy reports whether v is sealed under the legacy context rather than its purpose's,
// with its plaintext when it is. A value that opens under its purpose's context (or is
// not sealed) is not; one that opens under neither is an error: it is damaged, or sealed
// by another key.
func (c Config) legacy(ctx context.Context, k Keeper, v string, p Purpose) (plain string, old bool, err error) {
	if _, err := k.Open(ctx, v, c.EncryptionContext(p)); err == nil {
		return "", false, nil
	}
	plain, err = k.Open(ctx, v, c.legacyContext())
	if err != nil {
		return "", false, err
	}
	return plain, true, nil
}

// Pending counts, by kind, the tenant's values still sealed without their purpose.
func (a Admin) Pending(ctx context.Context, id string) (Kinds, error) {
	if a.Keeper == nil {
		return nil, errors.New("tenant: counting sealed values needs the key keeper")
	}
	c, err := a.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	n := Kinds{}
	_, err = c.mapSecrets(nil, func(v string, p Purpose) (string, error) {
		_, old, err := c.legacy(ctx, a.Keeper, v, p)
		if old {
			n[p]++
		}
		return v, err
	})
	return n, err
}

// ResealKinds seals again, each under its purpose's context, the tenant's values sealed
// without a purpose, and counts them by kind. A value already under its purpose is left
// as it is, so a second run writes nothing. Opening the old values needs every purpose's
// grant (an operator's, through tenantctl); the store seals what it is given, so the
// opened values are handed back to it in the clear and never leave.
func (a Admin) ResealKinds(ctx context.Context, id string) (Kinds, error) {
	if a.Keeper == nil {
		return nil, errors.New("tenant: resealing needs the key keeper")
	}
	var n Kinds
	err := a.update(ctx, id, func(c *Config) error {
		n = Kinds{} // update may run fn again after a conflict
		out, err := c.mapSecrets(nil, func(v string, p Purpose) (string, error) {
			plain, old, err := c.legacy(ctx, a.Keeper, v, p)
			if !old || err != nil {
				return v, err
			}
			n[p]++
			return plain, nil
		})
		if err != nil {
			return err
		}
		if n.Total() == 0 {
			return errNothingToReseal
		}
		*c = out
		return nil
	})
	if errors.Is(err, errNothingToReseal) {
		return Kinds{}, nil
	}
	return n, err
}

// ResealAll reseals every tenant whose id sorts after the cursor after ("" for all), in
// the order of their ids, calling done after each tenant with what was resealed. It
// returns the cursor to resume from: the last tenant done. A run that stops (an error, a
// lost session) is resumed from that cursor, or simply run again: tenants done already
// have nothing left and are passed over without a write.
func (a Admin) ResealAll(ctx context.Context, after string, done func(id string, n Kinds) error) (cursor string, err error) {
	ids, err := a.ids(ctx, after)
	if err != nil {
		return after, err
	}
	cursor = after
	for _, id := range ids {
		n, err := a.ResealKinds(ctx, id)
		if err != nil {
			return cursor, fmt.Errorf("tenant %s: %w", id, err)
		}
		if err := done(id, n); err != nil {
			return cursor, err
		}
		cursor = id
	}
	return cursor, nil
}

// PendingAll counts, per tenant in the order of their ids, the values still sealed
// without their purpose.
func (a Admin) PendingAll(ctx context.Context, each func(id string, n Kinds)) error {
	ids, err := a.ids(ctx, "")
	if err != nil {
		return err
	}
	for _, id := range ids {
		n, err := a.Pending(ctx, id)
		if err != nil {
			return fmt.Errorf("tenant %s: %w", id, err)
		}
		each(id, n)
	}
	return nil
}

// ids are the tenants' ids after the cursor after, sorted.
func (a Admin) ids(ctx context.Context, after string) ([]string, error) {
	all, err := a.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(all))
	for _, c := range all {
		if c.ID > after {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
