package platform

import (
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/governance"
)

// govStores are the guard's stores on the governance table. The guard itself, its
// connectors and its alerts are built by package guarded, so that a function that only
// reads these (the tool catalogue's governance check, the audit) links none of them.
type govStores struct {
	manifests governance.ManifestSource
	store     *governance.DynamoStore
}

// Manifests are the ownership manifests (default and tenant overrides), for the guard and
// the tool catalogue's read-only governance check.
func (b *Base) Manifests() governance.ManifestSource { return b.govStores().manifests }

// GovernanceStore is the governance table: the guard's ledger, held approvals,
// rejections and loop detections, and the tenants' manifest overrides.
func (b *Base) GovernanceStore() *governance.DynamoStore { return b.govStores().store }

// Ledger is the guard's write ledger.
func (b *Base) Ledger() governance.Ledger { return b.govStores().store }

func (b *Base) govStores() govStores {
	b.storesOnce.Do(func() {
		store := governance.NewDynamoStore(b.DB, b.Config.Table(blueprint.Governance))
		b.stores = govStores{
			manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: store},
			store:     store,
		}
	})
	return b.stores
}
