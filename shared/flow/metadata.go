package flow

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// The flow editor offers each vendor's own entity and field names, read from the vendor's
// metadata through the tenant's connector (connector/metadata.go) and cached per tenant in
// the flows table.
//
// MetadataTTL is how long a cached answer is served. A vendor's schema changes when an
// admin adds a custom field, rarely and by hand; an hour keeps the editor fast and the
// vendors' API budgets untouched by people clicking through entities, and the editor can
// ask for a fresh read (?refresh=true) right after such a change. DynamoDB's TTL removes
// the item later; the read checks the expiry itself, as TTL may lag by days.
const MetadataTTL = time.Hour

// Metadata is a system's entities, or one entity's fields, as its vendor describes them.
type Metadata struct {
	System connector.System `json:"system"`
	Vendor string           `json:"vendor"`
	// Entity is empty for the list of entities.
	Entity    string             `json:"entity,omitempty"`
	Entities  []connector.Entity `json:"entities,omitempty"`
	Fields    []connector.Field  `json:"fields,omitempty"`
	FetchedAt time.Time          `json:"fetchedAt"`
	ExpiresAt time.Time          `json:"expiresAt"`
	Cached    bool               `json:"cached"`
}

// Describer reads a system's metadata through the tenant's connector.
type Describer interface {
	Entities(ctx context.Context, tenantID string, system connector.System) ([]connector.Entity, error)
	Fields(ctx context.Context, tenantID string, system connector.System, entity string) ([]connector.Field, error)
}

// MetadataCache keeps metadata per tenant, system and entity ("" for the entity list).
type MetadataCache interface {
	// CachedMetadata is the entry unless it expired by now; ErrNotFound otherwise.
	CachedMetadata(ctx context.Context, tenantID string, system connector.System, entity string, now time.Time) (Metadata, error)
	PutMetadata(ctx context.Context, tenantID string, m Metadata) error
}

// Metadata answers from the cache, or reads the vendor and caches the answer. A cache
// that cannot be written still answers what was read.
func (s *Service) Metadata(ctx context.Context, tenantID string, system connector.System, entity string, refresh bool) (Metadata, error) {
	now := s.now()
	if !refresh {
		m, err := s.MetaCache.CachedMetadata(ctx, tenantID, system, entity, now)
		if err == nil {
			m.Cached = true
			return m, nil
		}
		if !errors.Is(err, ErrNotFound) {
			httpapi.Logger(ctx).Warn("metadata cache unreadable; reading the vendor", "system", system, "error", err)
		}
	}
	m := Metadata{System: system, Vendor: system.Vendor(), Entity: entity, FetchedAt: now, ExpiresAt: now.Add(MetadataTTL)}
	var err error
	if entity == "" {
		m.Entities, err = s.Describer.Entities(ctx, tenantID, system)
	} else {
		m.Fields, err = s.Describer.Fields(ctx, tenantID, system, entity)
	}
	if err != nil {
		return Metadata{}, err
	}
	if err := s.MetaCache.PutMetadata(ctx, tenantID, m); err != nil {
		httpapi.Logger(ctx).Warn("metadata not cached", "system", system, "error", err)
	}
	return m, nil
}

// MetadataHandler is GET /api/settings/connectors/{system}/metadata?entity=&refresh=: the
// vendor's entities, or an entity's fields.
func (s *Service) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		system := connector.System(r.PathValue("system"))
		if !system.Known() {
			httpapi.WriteProblem(w, r, problem(http.StatusNotFound, "unknown_system", "No such system; systems are "+connector.SystemNames()+"."))
			return
		}
		q := r.URL.Query()
		entity, refresh := q.Get("entity"), q.Get("refresh")
		var errs []httpapi.FieldError
		if entity != "" && !validName(entity) {
			errs = append(errs, httpapi.FieldError{Field: "entity", Message: "must be 1 to 128 visible characters"})
		}
		if refresh != "" && refresh != "true" && refresh != "false" {
			errs = append(errs, httpapi.FieldError{Field: "refresh", Message: "must be true or false"})
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidQuery(w, r, errs)
			return
		}
		m, err := s.Metadata(r.Context(), caller(r).TenantID, system, entity, refresh == "true")
		if err != nil {
			writeConnectorProblem(w, r, err, "The vendor's metadata cannot be read.")
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, m)
	})
}

// writeConnectorProblem answers a connector's failure in the vendor's words (status and
// code) without its body: 409 connector_not_configured, 404 for an entity the vendor does
// not have, 502 connector_failed for the rest, which the vendor (or the way to it) caused.
func writeConnectorProblem(w http.ResponseWriter, r *http.Request, err error, what string) {
	f := connector.Describe(err)
	var ce *connector.Error
	isConnector := errors.As(err, &ce) || errors.Is(err, connector.ErrNotConfigured) || errors.Is(err, connector.ErrInvalidConfig)
	var p *httpapi.Problem
	switch {
	case !isConnector:
		httpapi.WriteUnavailable(w, r, err, what+" Retry shortly.")
		return
	case f.Kind == "not_configured":
		p = problem(http.StatusConflict, "connector_not_configured", what+" "+f.Message+" Configure it in the settings.")
	case f.Kind == "not_found":
		p = problem(http.StatusNotFound, "vendor_not_found", what+" "+f.Message)
	default:
		p = problem(http.StatusBadGateway, "connector_failed", what+" "+f.Message)
	}
	if ce != nil {
		p.Target = &httpapi.TargetFailure{System: string(ce.System), Status: ce.Status, Code: ce.Code, Retryable: ce.Retryable}
	}
	httpapi.WriteProblem(w, r, p)
}
