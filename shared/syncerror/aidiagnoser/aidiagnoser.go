// Package aidiagnoser is the diagnose function's wiring: the sync-error worker diagnosing
// through the governed AI client. It is apart from the queue's other wiring so that only
// the diagnose function links the AI providers.
package aidiagnoser

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/syncerror"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

// Worker is the diagnosis worker of f, diagnosing through the governed AI client c.
func Worker(f *syncerrorwire.Feature, c *aiclient.Client) *syncerror.Worker {
	return f.Worker(governedDiagnoser{c: c, now: f.Base.Clock()})
}

// Lambda is the diagnose function's entry point.
func Lambda(ctx context.Context, b *platform.Base) (func(context.Context, events.SQSEvent) (events.SQSEventResponse, error), error) {
	f, err := syncerrorwire.New(b)
	if err != nil {
		return nil, err
	}
	c, err := aiclient.New(ctx, b)
	if err != nil {
		return nil, err
	}
	return Worker(f, c).HandleBatch, nil
}

// governedDiagnoser is the worker's syncerror.Diagnoser: the governed AI client, acting for the
// claim's tenant and naming what triggered the work.
type governedDiagnoser struct {
	c   *aiclient.Client
	now func() time.Time
}

func (d governedDiagnoser) Diagnose(ctx context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	trigger := "reconcile"
	if c.WebhookID != "" {
		trigger = "webhook:" + c.WebhookID
	}
	diag, err := d.c.Diagnose(ctx, identity.ForTenant(c.TenantID, trigger), inferenceID, c.ID, requestOf(c))
	switch {
	case errors.Is(err, ai.ErrPermanent):
		return syncerror.Proposal{}, &syncerror.PermanentError{Reason: "the AI provider refused or answered unusably; see the reasoning trace " + inferenceID}
	case errors.Is(err, ai.ErrNoAttribution):
		return syncerror.Proposal{}, &syncerror.PermanentError{Reason: "no tenant to attribute the inference to"}
	case err != nil:
		return syncerror.Proposal{}, err
	}
	p := syncerror.Proposal{
		Class: string(diag.Class), Retryable: diag.Retryable, Summary: diag.Summary, Rationale: diag.Rationale,
		Confidence: diag.Confidence, InferenceID: inferenceID, Provider: d.c.Provider, Model: d.c.Model,
		DiagnosedAt: d.now().UTC(),
	}
	p.Fix = make([]syncerror.FieldChange, 0, len(diag.Fix))
	for _, f := range diag.Fix {
		p.Fix = append(p.Fix, syncerror.FieldChange{Path: f.Path, Before: f.Before, After: f.After})
	}
	return p, nil
}

// requestOf is what the provider reads about claim c. It names the products of the
// error's systems, so that a code is explained by the catalogue of the system the error
// is about: the host ERP (NetSuite) a webhook or reconcile claim was recorded in (a
// flow's failed write did not come through it), and the vendor of an externalSystem that
// names one of the service's systems ("shipping" is ShipStation).
func requestOf(c syncerror.Claim) ai.DiagnosisRequest {
	r := c.Record
	req := ai.DiagnosisRequest{
		RecordType: r.RecordType, RecordID: r.RecordID, ErrorCode: r.ErrorCode, Message: r.Message,
		Integration: r.Integration, ExternalSystem: r.ExternalSystem, Direction: r.Direction,
		Payload: r.Payload, Context: r.Context,
	}
	if ext := connector.System(r.ExternalSystem); ext.Known() {
		req.ExternalVendor = ext.Vendor()
	}
	if c.Source != syncerror.SourceFlow {
		req.HostSystem = connector.SystemHostERP.Vendor()
	}
	return req
}
