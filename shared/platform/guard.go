package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/tenant"
)

// guardParts are built together: the guard and what shares its stores.
type guardParts struct {
	guard      *governance.Guard
	manifests  governance.ManifestSource
	ledger     governance.Ledger
	records    *dynamostore.Governance
	connectors *connector.Registry
}

// Guard is the one chokepoint every connector write passes: manifests (default and
// tenant overrides), ledger and records on the governance table, the tenants' connectors,
// DLP, audit, and alerts (log, metric and, when ALERT_BUS_NAME is set, an EventBridge
// event).
func (b *Base) Guard() (*governance.Guard, error) {
	b.buildGuard()
	return b.guard.guard, b.guardErr
}

// Manifests and Ledger are the guard's ownership manifests and write ledger, for the
// tool catalogue's read-only governance check.
func (b *Base) Manifests() governance.ManifestSource { b.buildGuard(); return b.guard.manifests }

// Ledger is the guard's write ledger.
func (b *Base) Ledger() governance.Ledger { b.buildGuard(); return b.guard.ledger }

// Connectors builds and caches the tenants' connector clients.
func (b *Base) Connectors() *connector.Registry { b.buildGuard(); return b.guard.connectors }

// Governance serves the governance review routes (held approvals, rejections, loops).
func (b *Base) Governance() (*governance.Service, error) {
	g, err := b.Guard()
	if err != nil {
		return nil, err
	}
	return &governance.Service{Records: b.guard.records, Guard: g, Audit: b.Audit, Now: b.now}, nil
}

func (b *Base) buildGuard() {
	b.guardOnce.Do(func() {
		store := dynamostore.NewGovernance(b.DB, b.Config.Table(blueprint.Governance))
		alerter := &governance.EventAlerter{Metrics: metricsOut, Now: b.now}
		if bus := b.Getenv("ALERT_BUS_NAME"); bus != "" {
			alerter.Events, alerter.BusName = eventbridge.NewFromConfig(b.AWS, func(o *eventbridge.Options) { o.BaseEndpoint = b.Endpoint("EventBridge") }), bus
		}
		p := guardParts{
			manifests:  &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: store},
			ledger:     store,
			records:    store,
			connectors: connector.NewRegistry(connectorConfigs{b.Tenants, b.Config.ConnectorTimeout}, connector.DefaultRegistryTTL),
		}
		p.guard, b.guardErr = governance.NewGuard(governance.Deps{
			Manifests: p.manifests, Ledger: p.ledger, Records: store,
			Connectors: governance.RegistryConnectors(p.connectors), Scanner: b.DLP(), Audit: b.Audit,
			Alerter: alerter, Now: b.now, LoopWindow: b.Config.LoopWindow,
		})
		if b.guardErr != nil {
			b.guardErr = fmt.Errorf("governance guard: %w", b.guardErr)
		}
		b.guard = p
	})
}

// connectorConfigs is connector.ConfigSource over the tenant table: each tenant keeps the
// base URL and token of its systems.
type connectorConfigs struct {
	tenants tenant.Reader
	timeout time.Duration
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
	return connector.Config{System: system, BaseURL: cc.BaseURL, Token: cc.Token, Timeout: c.timeout}, nil
}

// metricsOut is where alert metrics go: stdout, which CloudWatch reads as embedded metrics.
var metricsOut = os.Stdout
