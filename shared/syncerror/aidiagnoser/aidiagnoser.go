// Package aidiagnoser is the diagnose function's wiring: the sync-error worker diagnosing
// through the governed AI client. It is apart from the queue's other wiring so that only
// the diagnose function links the AI providers.
//
// A model is asked only when it adds something: the worker tries the tenant's learned
// fixes first (policy.Assist), then the rules (free, local); a configured model is
// called, once, only for an error the rules score below the tenant's threshold
// (ai.DefaultModelBelow unless the tenant sets tenant.KeyModelBelow).
package aidiagnoser

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Worker is the diagnosis worker of f, diagnosing through the governed AI client c.
func Worker(f *syncerrorwire.Feature, c *aiclient.Client) *diagnosis.Worker {
	return f.Worker(newDiagnoser(c, f.Base.HostTenants, f.Base.Clock()))
}

// newDiagnoser asks the rules before c's model; over the rules provider there is nothing
// to ask first.
func newDiagnoser(c *aiclient.Client, tenants tenant.Reader, now func() time.Time) governedDiagnoser {
	d := governedDiagnoser{c: c, tenants: tenants, now: now}
	if c.Provider != ai.ProviderRules {
		d.rules = c.WithProvider(ai.NewRulesProvider())
	}
	return d
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
	c *aiclient.Client
	// rules is the rules provider under the same governance, asked before c's model (nil
	// when c is the rules).
	rules   *ai.Governed
	tenants tenant.Reader
	now     func() time.Time
}

func (d governedDiagnoser) Diagnose(ctx context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	trigger := "reconcile"
	if c.WebhookID != "" {
		trigger = "webhook:" + c.WebhookID
	}
	id, req := identity.ForTenant(c.TenantID, trigger), requestOf(c)
	if d.rules != nil {
		diag, err := d.rules.Diagnose(ctx, id, inferenceID, c.ID, req)
		// A rules failure (a refused scan) is the model's failure too: the model call
		// below meets it again and reports it.
		if err == nil && diag.Confidence >= d.modelBelow(ctx, c.TenantID) {
			return d.proposal(diag, inferenceID, ai.ProviderRules, ai.RulesModel), nil
		}
	}
	if d.rules != nil {
		// The model's own inference: under the rules' id its cost record would find the
		// rules' first (the first record of an inference's operation stands, so a replay
		// never counts twice) and the model's paid tokens would go uncounted, and its trace
		// would overwrite the rules'.
		inferenceID += ModelInference
	}
	diag, err := d.c.Diagnose(ctx, id, inferenceID, c.ID, req)
	switch {
	case errors.Is(err, ai.ErrPermanent):
		return syncerror.Proposal{}, &syncerror.PermanentError{Reason: "the AI provider refused or answered unusably; see the reasoning trace " + inferenceID}
	case errors.Is(err, ai.ErrNoAttribution):
		return syncerror.Proposal{}, &syncerror.PermanentError{Reason: "no tenant to attribute the inference to"}
	case err != nil:
		return syncerror.Proposal{}, err
	}
	return d.proposal(diag, inferenceID, d.c.Provider, d.c.Model), nil
}

// ModelInference ends the inference id of a model asked after the rules, which keep the
// attempt's own id (syncerror.InferenceID); both begin with the claim's id, so the claim's
// traces and costs list both, and trimming it names the attempt (the fault suite's
// doubled-diagnosis check counts attempts, not inferences).
const ModelInference = "-model"

// modelBelow is the tenant's threshold: its setting when it is a number in [0, 1], else
// the default (also when the tenant cannot be read: the rules' answer is still checked).
func (d governedDiagnoser) modelBelow(ctx context.Context, tenantID string) float64 {
	if d.tenants == nil {
		return ai.DefaultModelBelow
	}
	t, err := d.tenants.Get(ctx, tenantID)
	if err != nil {
		return ai.DefaultModelBelow
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t.Settings[tenant.KeyModelBelow]), 64)
	if err != nil || v < 0 || v > 1 {
		return ai.DefaultModelBelow
	}
	return v
}

func (d governedDiagnoser) proposal(diag ai.Diagnosis, inferenceID, provider, model string) syncerror.Proposal {
	p := syncerror.Proposal{
		Class: string(diag.Class), Retryable: diag.Retryable, Summary: diag.Summary, Rationale: diag.Rationale,
		Confidence: diag.Confidence, InferenceID: inferenceID, Provider: provider, Model: model,
		DiagnosedAt: d.now().UTC(),
	}
	p.Fix = make([]syncerror.FieldChange, 0, len(diag.Fix))
	for _, f := range diag.Fix {
		p.Fix = append(p.Fix, syncerror.FieldChange{Path: f.Path, Before: f.Before, After: f.After})
	}
	return p
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
