package queue

import (
	"context"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/tenant"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// System names (issue 33 §4). A host names the system on the other side of a failed sync
// as its scripts do ("Business Central"); the row keeps that name exactly as sent
// (Record.ExternalSystem, never rewritten) and the listing, its filter and the insights
// read it as the connector system it resolves to by the tenant's aliases at read time
// (tenant.Config.ResolveSystem): an alias added later applies to rows already received,
// and the ingest stays one conditional write.

// SystemNames is the tenant's configuration the names resolve by (the function SystemNames).
func (o *Service) SystemNames(ctx context.Context, tenantID string) tenant.Config {
	return SystemNames(ctx, o.Tenants, tenantID)
}

// SystemNames is the tenant's configuration the names resolve by, read through the
// tenant reader (the cached plain-attribute read). Without a reader, or when the read
// fails, the defaults alone: a listing is never refused for its system names.
func SystemNames(ctx context.Context, tenants tenant.Reader, tenantID string) tenant.Config {
	if tenants == nil {
		return tenant.Config{}
	}
	c, err := tenants.Get(ctx, tenantID)
	if err != nil {
		httpapi.Logger(ctx).Warn("tenant unreadable; system names resolve by the defaults", "error", err)
		return tenant.Config{}
	}
	return c
}

// ResolvedSystem is the system a row's external system names for the tenant c: the
// connector system it resolves to, else the name as sent ("" when none was).
func ResolvedSystem(c tenant.Config, name string) string {
	if sys, ok := c.ResolveSystem(name); ok {
		return string(sys)
	}
	return name
}

// WithSystemNames widens the listing's system filter from one name to every name that
// resolves to the same system ("erp2" or "business central" lists the rows sent as
// "Business Central", "BC" and "erp2" alike). A name that resolves to no system is
// compared trimmed and without case too ("WebShop" lists the rows sent as "webshop").
func WithSystemNames(c tenant.Config, q syncerror.ListQuery) syncerror.ListQuery {
	if q.System == "" {
		return q
	}
	if sys, ok := c.ResolveSystem(q.System); ok {
		q.Systems = c.NamesOf(sys)
	} else {
		q.Systems = []string{q.System}
	}
	return q
}

// SystemChoice is a system the queue's System filter offers: a connector system, its
// vendor's product name, and every name that resolves to it for the tenant.
type SystemChoice struct {
	System string   `json:"system"`
	Vendor string   `json:"vendor"`
	Names  []string `json:"names"`
}

// systemChoices lists every connector system with the names the tenant's aliases (and the
// defaults) give it, host ERP first: what the System filter offers to pick.
func systemChoices(c tenant.Config) []SystemChoice {
	out := make([]SystemChoice, 0, len(connector.Systems))
	for _, s := range connector.Systems {
		out = append(out, SystemChoice{System: string(s), Vendor: s.Vendor(), Names: c.NamesOf(s)})
	}
	return out
}

// nameSystems sets each row's resolved system beside the name as sent.
func nameSystems(c tenant.Config, rows []*Summary) {
	for _, s := range rows {
		if s.ExternalSystem != "" {
			s.System = ResolvedSystem(c, s.ExternalSystem)
		}
	}
}
