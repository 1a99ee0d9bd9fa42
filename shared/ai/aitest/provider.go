package aitest

import (
	"context"
	"slices"
	"sync"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/identity"
)

// RecordingProvider wraps a provider and records every call made to it. It is itself an
// ai.Provider whose operations stay unexported, so tests hand it to ai.NewGoverned and
// read Calls afterwards; nothing can call it around Governed.
type RecordingProvider struct {
	ai.Provider
	rec *recorder
}

// NewRecordingProvider records the calls Governed makes to inner (nil: the rules
// provider).
func NewRecordingProvider(inner ai.Provider) *RecordingProvider {
	if inner == nil {
		inner = ai.NewRulesProvider()
	}
	rec := &recorder{}
	return &RecordingProvider{Provider: ai.Observe(inner, rec), rec: rec}
}

// Calls returns the calls so far, in order.
func (p *RecordingProvider) Calls() []ai.Call { return p.rec.calls() }

// Requests returns the diagnosis requests the provider received (suggest calls only).
func (p *RecordingProvider) Requests() []ai.DiagnosisRequest {
	var out []ai.DiagnosisRequest
	for _, c := range p.rec.calls() {
		if c.Operation == ai.OpSuggest {
			out = append(out, c.Request)
		}
	}
	return out
}

type recorder struct {
	mu  sync.Mutex
	got []ai.Call
}

func (r *recorder) ObserveCall(c ai.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, c)
}

func (r *recorder) calls() []ai.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.got)
	for i := range out {
		out[i].Request.Payload = slices.Clone(out[i].Request.Payload)
		out[i].Request.Context = slices.Clone(out[i].Request.Context)
		out[i].Chat.Messages = slices.Clone(out[i].Chat.Messages)
		out[i].Diagnosis.Fix = slices.Clone(out[i].Diagnosis.Fix)
		out[i].Assessed.Fix = slices.Clone(out[i].Assessed.Fix)
		if id := out[i].Identity; id != nil {
			c := copyIdentityRoles(*id)
			out[i].Identity = &c
		}
	}
	return out
}

// NewFailingProvider returns a provider whose every operation fails with err (wrap
// ai.ErrTransient or ai.ErrPermanent to drive a caller's retry logic).
func NewFailingProvider(err error) ai.Provider {
	return &ai.FuncProvider{
		ProviderName: "failing",
		ChatFunc: func(context.Context, *identity.Identity, ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
			return ai.ChatResponse{}, ai.Usage{Model: "failing"}, err
		},
		SuggestFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest) (ai.Diagnosis, ai.Usage, error) {
			return ai.Diagnosis{}, ai.Usage{Model: "failing"}, err
		},
		AssessQualityFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest, ai.Diagnosis) (float64, ai.Usage, error) {
			return 0, ai.Usage{Model: "failing"}, err
		},
	}
}

// NewScriptedProvider returns a provider that suggests d and assesses it at confidence,
// whatever it is asked, reporting usage for each call.
func NewScriptedProvider(d ai.Diagnosis, confidence float64, usage ai.Usage) ai.Provider {
	return &ai.FuncProvider{
		ProviderName: "scripted",
		ChatFunc: func(context.Context, *identity.Identity, ai.ChatRequest) (ai.ChatResponse, ai.Usage, error) {
			return ai.ChatResponse{Content: d.Summary}, usage, nil
		},
		SuggestFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest) (ai.Diagnosis, ai.Usage, error) {
			out := d
			out.Fix = slices.Clone(d.Fix)
			return out, usage, nil
		},
		AssessQualityFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest, ai.Diagnosis) (float64, ai.Usage, error) {
			return confidence, usage, nil
		},
	}
}

// Harness is a governed client over fakes, for tests of code that diagnoses.
type Harness struct {
	Governed *ai.Governed
	Provider *RecordingProvider
	Scanner  *Scanner
	Traces   *TraceStore
	Costs    *CostStore
	Audit    *Auditor
}

// NewHarness governs inner (nil: the rules provider) with a scanner that finds the
// canaries, and in-memory stores.
func NewHarness(inner ai.Provider, canaries ...Canary) *Harness {
	h := &Harness{
		Provider: NewRecordingProvider(inner),
		Scanner:  NewScanner(canaries...),
		Traces:   NewTraceStore(),
		Costs:    NewCostStore(),
		Audit:    NewAuditor(),
	}
	h.Governed = ai.NewGoverned(h.Provider, h.Scanner, h.Traces, h.Costs, h.Audit)
	return h
}
