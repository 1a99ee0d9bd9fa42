package governance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Alerter raises an alert for an ownership rejection under reject_with_alert, and for a
// write refused because it carries a DLP mask (which only a defect or an attack sends).
// The guard logs an alert that fails and refuses the write all the same.
type Alerter interface {
	Alert(ctx context.Context, r OwnershipRejection) error
	AlertMaskedValue(ctx context.Context, r MaskedValueRefusal) error
}

// Event is one alert event for an event bus.
type Event struct {
	Source     string
	DetailType string
	// Detail is the event's JSON document.
	Detail []byte
	// Time is when the rejection happened; zero lets the bus stamp it.
	Time time.Time
}

// EventPublisher puts alert events on a bus; the composition root adapts the eventbus
// package's EventBridge publisher to it. Publish fails when the bus did not take the event.
type EventPublisher interface {
	Publish(ctx context.Context, e Event) error
}

// Alert event and metric names. An EventBridge rule on the source and detail type routes
// alerts to on-call (SNS, chat); the metric feeds a CloudWatch alarm per tenant.
const (
	EventSource            = "syncassist.governance"
	EventDetailType        = "OwnershipRejection"
	MetricNamespace        = emf.Namespace
	MetricOwnershipRejects = "OwnershipRejections"
	// EventDetailTypeMasked and MetricMaskedValues are those of masked-value refusals.
	EventDetailTypeMasked = "MaskedValueRefusal"
	MetricMaskedValues    = "MaskedValueRefusals"
)

// EventAlerter raises an alert three ways: an error log line, a CloudWatch embedded
// metric format (EMF) line, which CloudWatch Logs turns into the metric
// SyncAssist/OwnershipRejections by tenant without an API call, and an EventBridge event.
// Nothing it emits holds a field value: a rejection names fields only.
type EventAlerter struct {
	// Events publishes the event; nil skips it (the local stack, tests).
	Events EventPublisher
	// Metrics receives the EMF lines; nil is emf.Out (stdout), where Lambda's log capture
	// (and so the EMF parser) reads.
	Metrics io.Writer
	// Now stamps the metric; nil is time.Now.
	Now func() time.Time
}

var _ Alerter = (*EventAlerter)(nil)

// Alert implements Alerter. It tries every channel and returns their failures joined.
func (a *EventAlerter) Alert(ctx context.Context, r OwnershipRejection) error {
	httpapi.Logger(ctx).Error("ownership rejection",
		slog.String("rejectionId", r.ID), slog.String("tenant", r.Tenant), slog.String("entity", r.Entity),
		slog.String("declaredOwner", string(r.DeclaredOwner)), slog.String("caller", string(r.Caller)),
		slog.String("target", string(r.Target)), slog.String("policy", string(r.Policy)),
		slog.String("resource", r.Resource), slog.Any("fields", r.Fields))
	var errs []error
	if err := a.emitMetric(r); err != nil {
		errs = append(errs, fmt.Errorf("alert metric: %w", err))
	}
	if a.Events != nil {
		if err := a.putEvent(ctx, r); err != nil {
			errs = append(errs, fmt.Errorf("alert event: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (a *EventAlerter) emitMetric(r OwnershipRejection) error {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	return emf.Write(a.Metrics, emf.Metric{Time: now(), Counts: map[string]float64{MetricOwnershipRejects: 1},
		Dimensions: []string{"tenant"},
		// Non-dimension members are searchable in Logs Insights without adding metrics.
		Fields: map[string]any{"tenant": r.Tenant, "entity": r.Entity, "declaredOwner": r.DeclaredOwner,
			"caller": r.Caller, "rejectionId": r.ID}})
}

// alertDetail is the event's detail: the rejection as the governance API shows it.
type alertDetail struct {
	ID            string    `json:"id"`
	Time          time.Time `json:"time"`
	Tenant        string    `json:"tenant"`
	Entity        string    `json:"entity"`
	DeclaredOwner string    `json:"declaredOwner"`
	Caller        string    `json:"caller"`
	Target        string    `json:"target"`
	Policy        string    `json:"policy"`
	CorrelationID string    `json:"correlationId"`
	Resource      string    `json:"resource"`
	Fields        []string  `json:"fields"`
}

func (a *EventAlerter) putEvent(ctx context.Context, r OwnershipRejection) error {
	detail, err := json.Marshal(alertDetail{
		ID: r.ID, Time: r.Time, Tenant: r.Tenant, Entity: r.Entity, DeclaredOwner: string(r.DeclaredOwner),
		Caller: string(r.Caller), Target: string(r.Target), Policy: string(r.Policy),
		CorrelationID: r.CorrelationID, Resource: r.Resource, Fields: r.Fields,
	})
	if err != nil {
		return err
	}
	return a.Events.Publish(ctx, Event{Source: EventSource, DetailType: EventDetailType, Detail: detail, Time: r.Time})
}

// AlertMaskedValue implements Alerter: the same three channels, under the metric
// SyncAssist/MaskedValueRefusals and the detail type MaskedValueRefusal.
func (a *EventAlerter) AlertMaskedValue(ctx context.Context, r MaskedValueRefusal) error {
	httpapi.Logger(ctx).Error("masked value refused",
		slog.String("refusalId", r.ID), slog.String("tenant", r.Tenant), slog.String("entity", r.Entity),
		slog.String("caller", string(r.Caller)), slog.String("target", string(r.Target)),
		slog.String("resource", r.Resource), slog.Any("fields", r.Fields), slog.String("reason", r.Reason))
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	var errs []error
	if err := emf.Write(a.Metrics, emf.Metric{Time: now(), Counts: map[string]float64{MetricMaskedValues: 1},
		Dimensions: []string{"tenant"},
		Fields:     map[string]any{"tenant": r.Tenant, "entity": r.Entity, "target": r.Target, "refusalId": r.ID}}); err != nil {
		errs = append(errs, fmt.Errorf("alert metric: %w", err))
	}
	if a.Events != nil {
		detail, err := json.Marshal(maskedDetail{ID: r.ID, Time: r.Time, Tenant: r.Tenant, Entity: r.Entity,
			Caller: string(r.Caller), Target: string(r.Target), CorrelationID: r.CorrelationID, Resource: r.Resource,
			Fields: r.Fields, Reason: r.Reason})
		if err == nil {
			err = a.Events.Publish(ctx, Event{Source: EventSource, DetailType: EventDetailTypeMasked, Detail: detail, Time: r.Time})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("alert event: %w", err))
		}
	}
	return errors.Join(errs...)
}

// maskedDetail is a masked-value refusal's event detail; like a rejection's, it names
// fields, never values.
type maskedDetail struct {
	ID            string    `json:"id"`
	Time          time.Time `json:"time"`
	Tenant        string    `json:"tenant"`
	Entity        string    `json:"entity"`
	Caller        string    `json:"caller"`
	Target        string    `json:"target"`
	CorrelationID string    `json:"correlationId"`
	Resource      string    `json:"resource"`
	Fields        []string  `json:"fields"`
	Reason        string    `json:"reason,omitempty"`
}
