// Package guarded wires the governed write path: the guard every connector write passes
// (manifests, ledger, loop detection, DLP, audit), the tenants' connectors it writes
// through, its alerts (a log line, an EMF metric and, when ALERT_BUS_NAME is set, an
// EventBridge event) and the governance review routes. It is platform and knows no
// feature; it lives apart from package platform so that a function that writes nothing
// (ingest, the audit, the catalogue) links neither the connectors nor EventBridge.
package guarded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/eventbus"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/ratebudget"
	"github.com/syncassist/syncassist/shared/tenant"
)

type guardKey struct{}

type connectorsKey struct{}

type built struct {
	guard *governance.Guard
	err   error
}

// Guard is the one chokepoint every connector write passes, built once per process.
func Guard(b *platform.Base) (*governance.Guard, error) {
	g := platform.Memo(b, guardKey{}, func() built {
		alerter := &governance.EventAlerter{Metrics: metricsOut, Now: b.Clock()}
		if bus := b.Getenv("ALERT_BUS_NAME"); bus != "" {
			alerter.Events = alertBus{eventbus.New(b.AWS, b.Endpoint("EventBridge"), bus)}
		}
		store := b.GovernanceStore()
		// The manifest is kept for the tenant cache's TTL: a flow event's write reads no
		// overrides from the table while they are fresh (issue 37 §3).
		manifests := governance.NewCachedManifests(b.Manifests(), b.Config.TenantCacheTTL, nil)
		g, err := governance.NewGuard(governance.Deps{
			Manifests: manifests, Ledger: store, Records: store,
			Connectors: governance.RegistryConnectors(Connectors(b)), Scanner: b.DLP(), Audit: b.Audit,
			Alerter: alerter, Now: b.Clock(), LoopWindow: b.Config.LoopWindow, Flaps: store,
		})
		if err != nil {
			return built{err: fmt.Errorf("governance guard: %w", err)}
		}
		return built{guard: g}
	})
	return g.guard, g.err
}

// Connectors are the tenants' connector clients, built from the tenant table and cached.
// Every client takes from its account's rate budget, which every function shares through
// the governance table (shared/ratebudget).
func Connectors(b *platform.Base) *connector.Registry {
	return platform.Memo(b, connectorsKey{}, func() *connector.Registry {
		budget := ratebudget.New(ratebudget.NewDynamoStore(b.DB, b.Config.Table(blueprint.Governance)), b.Clock())
		return connector.NewRegistry(connectorConfigs{b.TenantsFor(tenant.PurposeConnectors), b.Keeper, b.Config.ConnectorTimeout,
			b.Config.ConnectorsAllowLocal, budget}, connector.DefaultRegistryTTL)
	})
}

// Governance serves the governance review routes (held approvals, rejections, loops).
func Governance(b *platform.Base) (*governance.Service, error) {
	g, err := Guard(b)
	if err != nil {
		return nil, err
	}
	return &governance.Service{Records: b.GovernanceStore(), Guard: g, Audit: b.Audit, Now: b.Clock()}, nil
}

// Routes are the governance review routes: held approvals (list, approve, deny), ownership
// rejections and loop detections.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	gov, err := Governance(b)
	if err != nil {
		return nil, err
	}
	return platform.Routes{
		blueprint.FuncGovernanceApprovals:  {Handler: gov.ApprovalsHandler()},
		blueprint.FuncGovernanceRejections: {Handler: gov.OwnershipRejectionsHandler()},
		blueprint.FuncGovernanceLoops:      {Handler: gov.LoopDetectionsHandler()},
		blueprint.FuncGovernanceApprove:    {Handler: gov.ApproveHandler()},
		blueprint.FuncGovernanceDeny:       {Handler: gov.DenyHandler()},
	}, nil
}

// connectorConfigs is connector.ConfigSource over the tenant table: each tenant keeps the
// base URL and token of its systems, the token sealed (opened here, where it is used).
type connectorConfigs struct {
	tenants    tenant.Reader
	keeper     tenant.Keeper
	timeout    time.Duration
	allowLocal bool
	budget     connector.Budget
}

func (c connectorConfigs) ConnectorConfig(ctx context.Context, tenantID string, system connector.System) (connector.Config, error) {
	cfg, err := c.tenants.Get(ctx, tenantID)
	if errors.Is(err, tenant.ErrNotFound) {
		return connector.Config{}, connector.ErrNotConfigured
	}
	if err != nil {
		return connector.Config{}, err
	}
	cc, ok := cfg.Connectors[string(system)]
	if !ok || cc.BaseURL == "" {
		return connector.Config{}, fmt.Errorf("tenant %s, %s: %w", tenantID, system, connector.ErrNotConfigured)
	}
	token := cc.Token
	if c.keeper != nil {
		if token, err = cfg.OpenedToken(ctx, c.keeper, string(system)); err != nil {
			return connector.Config{}, fmt.Errorf("tenant %s, %s: %w", tenantID, system, err)
		}
	}
	return connector.Config{System: system, BaseURL: cc.BaseURL, Token: token, TokenURL: cc.TokenURL, Scope: cc.Scope,
		TenantID: tenantID, Timeout: c.timeout, AllowLoopback: c.allowLocal, Budget: c.budget}, nil
}

// metricsOut is where alert metrics go: stdout, which CloudWatch reads as embedded metrics.
var metricsOut = os.Stdout

// alertBus puts the guard's alert events on EventBridge: governance owns the event, the
// bus's adapter knows none, so the two meet here.
type alertBus struct{ bus *eventbus.Publisher }

func (a alertBus) Publish(ctx context.Context, e governance.Event) error {
	return a.bus.Publish(ctx, eventbus.Event(e))
}
