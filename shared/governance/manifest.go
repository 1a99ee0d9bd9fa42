package governance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
)

// Policy says what happens to a write that conflicts with a declared owner.
type Policy string

// Ownership policies.
const (
	PolicyRejectWithAlert Policy = "reject_with_alert"
	PolicySourceWins      Policy = "source_wins"
	PolicyRequireApproval Policy = "require_approval"
)

// Valid reports whether p is one of the three policies.
func (p Policy) Valid() bool { return p.strictness() > 0 }

// strictness orders the policies for a write whose conflicting fields carry different
// ones: the strictest decides for the whole write.
func (p Policy) strictness() int {
	switch p {
	case PolicyRejectWithAlert:
		return 3
	case PolicyRequireApproval:
		return 2
	case PolicySourceWins:
		return 1
	}
	return 0
}

// ErrInvalidManifest is returned for manifest entries that cannot be enforced.
var ErrInvalidManifest = errors.New("governance: invalid ownership manifest")

// Entry declares the owner of an entity, or of one field of it when Field is set.
type Entry struct {
	Entity string
	// Field is empty for the entity-level entry.
	Field  string
	Owner  connector.System
	Policy Policy
}

// Manifest is a set of ownership entries, at most one per (Entity, Field).
type Manifest struct {
	Entries []Entry
}

// Owner returns the entry that governs field of entity: the field-level entry if there is
// one, else the entity-level entry. ok is false when the manifest declares no owner.
func (m Manifest) Owner(entity, field string) (Entry, bool) {
	var entityLevel *Entry
	for i := range m.Entries {
		e := &m.Entries[i]
		// Case-insensitive: "SalesOrder.ShipCountry" must not slip past an entry for
		// salesOrder.shipcountry just because a connector spells it differently.
		if !strings.EqualFold(e.Entity, entity) {
			continue
		}
		if e.Field == "" {
			entityLevel = e
		} else if field != "" && strings.EqualFold(e.Field, field) {
			return *e, true
		}
	}
	if entityLevel != nil {
		return *entityLevel, true
	}
	return Entry{}, false
}

// Validate reports entries that cannot be enforced: no entity, an unknown owner, an
// unknown policy, or two entries for the same (Entity, Field).
func (m Manifest) Validate() error {
	return validateEntries(m.Entries)
}

func validateEntries(entries []Entry) error {
	type key struct{ entity, field string }
	seen := make(map[key]bool, len(entries))
	for i, e := range entries {
		switch {
		case e.Entity == "":
			return fmt.Errorf("%w: entry %d has no entity", ErrInvalidManifest, i)
		case !e.Owner.Known():
			return fmt.Errorf("%w: %s: unknown owner %q", ErrInvalidManifest, e.key(), e.Owner)
		case !e.Policy.Valid():
			return fmt.Errorf("%w: %s: unknown policy %q", ErrInvalidManifest, e.key(), e.Policy)
		case seen[key{strings.ToLower(e.Entity), strings.ToLower(e.Field)}]:
			return fmt.Errorf("%w: %s is declared twice", ErrInvalidManifest, e.key())
		}
		seen[key{strings.ToLower(e.Entity), strings.ToLower(e.Field)}] = true
	}
	return nil
}

func (e Entry) key() string {
	if e.Field == "" {
		return e.Entity
	}
	return e.Entity + "." + e.Field
}

// DefaultManifest is the manifest the product ships with; the package documentation
// explains each line. It returns a fresh copy, so callers may change it.
func DefaultManifest() Manifest {
	const (
		host      = connector.SystemHostERP
		crm       = connector.SystemCRM
		marketing = connector.SystemMarketing
		shipping  = connector.SystemShipping
	)
	return Manifest{Entries: []Entry{
		{Entity: "salesOrder", Owner: host, Policy: PolicyRejectWithAlert},
		{Entity: "salesOrder", Field: "trackingNumber", Owner: shipping, Policy: PolicySourceWins},
		{Entity: "invoice", Owner: host, Policy: PolicyRejectWithAlert},
		{Entity: "vendorBill", Owner: host, Policy: PolicyRequireApproval},
		{Entity: "journalEntry", Owner: host, Policy: PolicyRejectWithAlert},
		{Entity: "item", Owner: host, Policy: PolicySourceWins},
		{Entity: "customer", Owner: host, Policy: PolicyRejectWithAlert},
		{Entity: "customer", Field: "email", Owner: crm, Policy: PolicySourceWins},
		{Entity: "customer", Field: "phone", Owner: crm, Policy: PolicySourceWins},
		{Entity: "contact", Owner: crm, Policy: PolicyRejectWithAlert},
		{Entity: "contact", Field: "marketingOptIn", Owner: marketing, Policy: PolicyRequireApproval},
		{Entity: "account", Owner: crm, Policy: PolicyRejectWithAlert},
		{Entity: "opportunity", Owner: crm, Policy: PolicySourceWins},
		{Entity: "campaign", Owner: marketing, Policy: PolicyRejectWithAlert},
		{Entity: "subscription", Owner: marketing, Policy: PolicySourceWins},
		{Entity: "shipment", Owner: shipping, Policy: PolicyRejectWithAlert},
		{Entity: "label", Owner: shipping, Policy: PolicyRejectWithAlert},
		{Entity: "trackingNumber", Owner: shipping, Policy: PolicyRejectWithAlert},
	}}
}

// Merge returns base with overrides applied: an override replaces the base entry with
// the same (Entity, Field), keeping its place, and entries base does not have are
// appended. An override may thus move ownership, change a policy, or declare an owner
// for a field or entity the base leaves open. Neither argument is modified.
func Merge(base Manifest, overrides []Entry) Manifest {
	out := Manifest{Entries: slices.Clone(base.Entries)}
	for _, o := range overrides {
		i := slices.IndexFunc(out.Entries, func(e Entry) bool { return e.Entity == o.Entity && e.Field == o.Field })
		if i >= 0 {
			out.Entries[i] = o
		} else {
			out.Entries = append(out.Entries, o)
		}
	}
	return out
}

// ManifestSource gives the manifest in force for a tenant.
type ManifestSource interface {
	Manifest(ctx context.Context, tenantID string) (Manifest, error)
}

// OverrideStore keeps each tenant's manifest overrides, as one unit per tenant.
type OverrideStore interface {
	// Overrides returns the tenant's entries; none is an empty result, not an error.
	Overrides(ctx context.Context, tenantID string) ([]Entry, error)
	// PutOverrides replaces the tenant's entries.
	PutOverrides(ctx context.Context, tenantID string, entries []Entry) error
}

// TenantManifests is the ManifestSource of the service: Default merged with each
// tenant's overrides. A nil Overrides serves Default to every tenant.
type TenantManifests struct {
	Default   Manifest
	Overrides OverrideStore
}

var _ ManifestSource = (*TenantManifests)(nil)

// Manifest implements ManifestSource. A store error is returned, never papered over
// with the default: the guard refuses to write when it cannot know the tenant's rules.
func (s *TenantManifests) Manifest(ctx context.Context, tenantID string) (Manifest, error) {
	if s.Overrides == nil {
		return s.Default, nil
	}
	o, err := s.Overrides.Overrides(ctx, tenantID)
	if err != nil {
		return Manifest{}, fmt.Errorf("manifest overrides of tenant %s: %w", tenantID, err)
	}
	if len(o) == 0 {
		return s.Default, nil
	}
	return Merge(s.Default, o), nil
}

// SetOverrides validates and stores a tenant's overrides, replacing earlier ones. The
// merged manifest must be valid too, so an override cannot smuggle in a duplicate.
func (s *TenantManifests) SetOverrides(ctx context.Context, tenantID string, entries []Entry) error {
	if s.Overrides == nil {
		return fmt.Errorf("%w: no override store configured", ErrInvalidManifest)
	}
	if tenantID == "" {
		return fmt.Errorf("%w: tenant id is required", ErrInvalidManifest)
	}
	if err := validateEntries(entries); err != nil {
		return err
	}
	if err := Merge(s.Default, entries).Validate(); err != nil {
		return err
	}
	if err := s.Overrides.PutOverrides(ctx, tenantID, slices.Clone(entries)); err != nil {
		return err
	}
	// What this process cached of any tenant's manifest is read again (CachedManifests).
	overridesGen.Add(1)
	return nil
}
