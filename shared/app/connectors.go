package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
)

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

// hostErrors is the reconcile's syncerror.HostErrors over the tenant's host ERP connector.
type hostErrors struct{ registry *connector.Registry }

func (h hostErrors) ListSyncErrors(ctx context.Context, tenantID string, since time.Time, cursor string, limit int) ([]json.RawMessage, string, error) {
	c, err := h.registry.Client(ctx, tenantID, connector.SystemHostERP)
	if errors.Is(err, connector.ErrNotConfigured) {
		return nil, "", fmt.Errorf("%w: %w", syncerror.ErrWriterNotConfigured, err)
	}
	if err != nil {
		return nil, "", err
	}
	page, err := c.ListSyncErrors(ctx, since, cursor, limit)
	if err != nil {
		return nil, "", err
	}
	return page.Items, page.NextCursor, nil
}
