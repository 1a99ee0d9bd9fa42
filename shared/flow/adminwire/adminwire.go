// Package adminwire builds the flows feature for the routes that run no flow: the runs,
// the status and the cross-references (operators), the flows' settings, the dry run and
// the vendors' metadata (admins). It is apart from package wire, which builds a run's
// delivery (the sync-error reporter over the diagnosis queue, the retrier, the sources'
// authentication), so that the functions serving these routes link no SQS client and no
// sync-error intake (issue 37 §4: a function's size is what its imports link).
package adminwire

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
)

// New builds the flows service of the admin routes. Its executor only plans (the dry
// run) and reads the flows table itself, without the runs' cache, so a dry run sees a flow
// saved a moment ago.
func New(b *platform.Base) (*flow.Service, error) {
	g, err := guarded.Guard(b)
	if err != nil {
		return nil, err
	}
	store := flow.NewDynamoStore(b.DB, b.Config.Table(blueprint.Flows))
	conns := Connectors{Registry: guarded.Connectors(b)}
	x := &flow.Executor{Store: store, Guard: g, Now: b.Clock(), Trails: governance.Trails{Ledger: b.GovernanceStore()},
		XRefs: store, Finder: Finders{Connectors: conns.Registry}}
	return &flow.Service{Store: store, Exec: x, Audit: b.Audit, Now: b.Clock(), Manifests: b.Manifests(),
		Evaluator: g, Reader: conns, Describer: conns, MetaCache: store}, nil
}

// Routes are the flows' HTTP functions but the change event (wire.EventRoutes).
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return handlers(s), nil
}

// handlers are s's handlers of the routes that run no flow.
func handlers(s *flow.Service) platform.Routes {
	return platform.Routes{
		blueprint.FuncFlowRunsList:  {Handler: s.RunsHandler()},
		blueprint.FuncFlowRunDetail: {Handler: s.RunHandler()},
		blueprint.FuncFlowStatus:    {Handler: s.StatusHandler()},
		blueprint.FuncFlowXRefs:     {Handler: s.XRefsHandler()},
		blueprint.FuncFlowXRefFix:   {Handler: s.XRefFixHandler()},
		blueprint.FuncFlowDryRun:    {Handler: s.DryRunHandler()},
		blueprint.FuncFlowMetadata:  {Handler: s.MetadataHandler()},
		blueprint.FuncFlowsList:     {Handler: s.FlowsHandler()},
		blueprint.FuncFlowDetail:    {Handler: s.FlowHandler()},
		blueprint.FuncFlowPut:       {Handler: s.PutFlowHandler()},
		blueprint.FuncFlowDelete:    {Handler: s.DeleteFlowHandler()},
	}
}

// Connectors reads records and metadata through the tenants' connectors: reads, which
// need no guard.
type Connectors struct{ Registry *connector.Registry }

// Get implements flow.Reader.
func (c Connectors) Get(ctx context.Context, tenantID string, system connector.System, entity, id string) (connector.Record, error) {
	client, err := c.Registry.Client(ctx, tenantID, system)
	if err != nil {
		return connector.Record{}, err
	}
	return client.Get(ctx, entity, id)
}

// Entities implements flow.Describer.
func (c Connectors) Entities(ctx context.Context, tenantID string, system connector.System) ([]connector.Entity, error) {
	client, err := c.Registry.Client(ctx, tenantID, system)
	if err != nil {
		return nil, err
	}
	return client.Entities(ctx)
}

// Fields implements flow.Describer.
func (c Connectors) Fields(ctx context.Context, tenantID string, system connector.System, entity string) ([]connector.Field, error) {
	client, err := c.Registry.Client(ctx, tenantID, system)
	if err != nil {
		return nil, err
	}
	return client.Fields(ctx, entity)
}

// Finders finds target records through the tenants' connectors: a read, which needs no
// guard.
type Finders struct{ Connectors *connector.Registry }

// Find implements flow.Finder.
func (f Finders) Find(ctx context.Context, tenantID string, system connector.System, entity, field, value string) ([]string, error) {
	c, err := f.Connectors.Client(ctx, tenantID, system)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, entity, field, value)
}
