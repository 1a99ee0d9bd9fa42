// Package aiclient builds the governed AI client from the environment: the provider
// (rules, Bedrock or OpenAI, with the OpenAI key read from Secrets Manager), DLP's
// AI-prompt policy, the trace and cost records and the audit log. Only the functions that
// call a model import it, so the others do not link the providers' SDKs.
package aiclient

import (
	"context"
	"fmt"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/platform"
)

// Client is the governed AI client and what it runs on.
type Client struct {
	*ai.Governed
	// Provider and Model name what answers, for the proposals that cite it.
	Provider, Model string
}

// New builds the governed client for b's environment.
func New(ctx context.Context, b *platform.Base) (*Client, error) {
	cfg, err := ai.ProviderConfigFromEnv(b.Getenv)
	if err != nil {
		return nil, err
	}
	bedrock := b.AWS
	bedrock.BaseEndpoint = b.Endpoint("Bedrock Runtime")
	cfg.AWSConfig = &bedrock
	if arn := b.Getenv("OPENAI_API_KEY_SECRET_ARN"); cfg.Name == "openai" && cfg.OpenAIAPIKey == "" && arn != "" {
		if cfg.OpenAIAPIKey, err = b.SecretValue(ctx, arn); err != nil {
			return nil, fmt.Errorf("OpenAI API key: %w", err)
		}
	}
	provider, err := ai.NewProvider(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("AI provider: %w", err)
	}
	records := Records{b.AIRecords()}
	g := ai.NewGoverned(provider, promptScanner{b.DLP()}, records, records, auditor{b.Audit}).WithClock(b.Clock())
	c := &Client{Governed: g, Provider: provider.Name(), Model: cfg.Model}
	if c.Model == "" && c.Provider == "rules" {
		c.Model = ai.RulesModel
	}
	return c, nil
}

// promptScanner is ai.PromptScanner over DLP's AI-prompt policy.
type promptScanner struct{ s *dlp.Scanner }

func (p promptScanner) Anonymize(_ context.Context, doc []byte) ([]byte, map[string]int, error) {
	r, err := p.s.ScanJSON(dlp.AIPrompt, doc)
	if err != nil {
		return nil, nil, err
	}
	return r.Output, r.Counts(), nil
}

func (p promptScanner) RedactText(_ context.Context, text string) (string, error) {
	return p.s.RedactString(dlp.Record, text)
}

// auditor is ai.Auditor over the audit log.
type auditor struct{ l *audit.Log }

func (a auditor) Audit(ctx context.Context, e ai.AuditEvent) error {
	return a.l.Write(ctx, audit.Entry{Actor: e.Identity, ActionType: e.ActionType, ActionKey: e.ActionKey,
		Result: e.Result, Resource: e.Resource, Details: e.Details})
}
