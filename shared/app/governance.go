package app

import (
	"context"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The adapters below connect packages that each declare the small interface they need;
// none of them knows the others.

// promptScanner is ai.PromptScanner over DLP's AI-prompt policy.
type promptScanner struct{ s *dlp.Scanner }

func (p promptScanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	r, err := p.s.ScanJSON(dlp.AIPrompt, doc)
	if err != nil {
		return nil, nil, err
	}
	return r.Output, r.Counts(), nil
}

// recordRedactor is audit.Redactor over DLP's record policy.
type recordRedactor struct{ s *dlp.Scanner }

func (p recordRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	r, err := p.s.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, err
	}
	return r.Output, nil
}

// aiAuditor is ai.Auditor over the audit log.
type aiAuditor struct{ l *audit.Log }

func (a aiAuditor) Audit(ctx context.Context, e ai.AuditEvent) error {
	return a.l.Write(ctx, audit.Entry{Actor: e.Identity, ActionType: e.ActionType, ActionKey: e.ActionKey,
		Result: e.Result, Resource: e.Resource, Details: e.Details})
}

// governedDiagnoser is the worker's syncerror.Diagnoser: the governed AI client, acting for
// the claim's tenant and naming what triggered the work.
type governedDiagnoser struct {
	g               *ai.Governed
	provider, model string
	now             func() time.Time
}

func (d governedDiagnoser) Diagnose(ctx context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	trigger := "reconcile"
	if c.WebhookID != "" {
		trigger = "webhook:" + c.WebhookID
	}
	r := c.Record
	req := ai.DiagnosisRequest{
		RecordType: r.RecordType, RecordID: r.RecordID, ErrorCode: r.ErrorCode, Message: r.Message,
		Integration: r.Integration, ExternalSystem: r.ExternalSystem, Direction: r.Direction,
		Payload: r.Payload, Context: r.Context,
	}
	diag, err := d.g.Diagnose(ctx, identity.ForTenant(c.TenantID, trigger), inferenceID, c.ID, req)
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
		Confidence: diag.Confidence, InferenceID: inferenceID, Provider: d.provider, Model: d.model,
		DiagnosedAt: d.now().UTC(),
	}
	p.Fix = make([]syncerror.FieldChange, 0, len(diag.Fix))
	for _, f := range diag.Fix {
		p.Fix = append(p.Fix, syncerror.FieldChange{Path: f.Path, Before: f.Before, After: f.After})
	}
	return p, nil
}
