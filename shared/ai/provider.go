package ai

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/syncassist/syncassist/shared/identity"
)

// Errors callers branch on. Provider failures wrap ErrTransient or ErrPermanent with %w.
var (
	// ErrTransient: the call may succeed if repeated later (timeout, throttling, 5xx,
	// connection failure, a store that failed to record the inference). The worker lets
	// the queue redeliver the message.
	ErrTransient = errors.New("ai: transient failure")
	// ErrPermanent: repeating the call will not help (the provider refused the request,
	// the model's output is unusable). The diagnosis is marked failed.
	ErrPermanent = errors.New("ai: permanent failure")
	// ErrNoAttribution: the identity names no tenant; nothing was sent.
	ErrNoAttribution = errors.New("ai: identity is not attributable to a tenant")
	// ErrScanRefused: the DLP scan of the prompt failed or returned something unusable;
	// nothing was sent.
	ErrScanRefused = errors.New("ai: DLP scan failed, nothing was sent")
)

// Provider is a model backend: the rule-based diagnoser, Bedrock, an OpenAI-compatible
// server. Its operations are the spec's chat, suggest and assessQuality, each taking an
// optional identity; they are unexported so that no code outside this package can call a
// provider, and inside it only Governed does. Hand a Provider to NewGoverned.
//
// The identity is passed so that every operation is attributable at the call site; no
// provider forwards it, so nothing that identifies the tenant leaves the service.
type Provider interface {
	// Name is the provider's configuration name: "rules", "bedrock", "openai", or what a
	// FuncProvider calls itself.
	Name() string

	chat(ctx context.Context, id *identity.Identity, req ChatRequest) (ChatResponse, Usage, error)
	suggest(ctx context.Context, id *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error)
	// assessQuality scores d, a diagnosis of req, in [0, 1].
	assessQuality(ctx context.Context, id *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error)
}

// Operation names, as they appear in traces, cost records and observed calls.
const (
	OpChat          = "chat"
	OpSuggest       = "suggest"
	OpAssessQuality = "assessQuality"
	// OpDiagnose is Governed.Diagnose: a suggest step and an assessQuality step.
	OpDiagnose = "diagnose"
)

// FuncProvider is a Provider made of functions, for test fakes (see package aitest) and
// backends defined elsewhere. The functions are the caller's own code, so it opens no way
// around Governed to a real provider. A nil function fails with ErrPermanent.
type FuncProvider struct {
	ProviderName      string
	ChatFunc          func(ctx context.Context, id *identity.Identity, req ChatRequest) (ChatResponse, Usage, error)
	SuggestFunc       func(ctx context.Context, id *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error)
	AssessQualityFunc func(ctx context.Context, id *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error)
}

var _ Provider = (*FuncProvider)(nil)

// Name implements Provider.
func (f *FuncProvider) Name() string {
	if f.ProviderName == "" {
		return "func"
	}
	return f.ProviderName
}

func (f *FuncProvider) chat(ctx context.Context, id *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	if f.ChatFunc == nil {
		return ChatResponse{}, Usage{}, fmt.Errorf("%s: chat not implemented: %w", f.Name(), ErrPermanent)
	}
	return f.ChatFunc(ctx, id, req)
}

func (f *FuncProvider) suggest(ctx context.Context, id *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	if f.SuggestFunc == nil {
		return Diagnosis{}, Usage{}, fmt.Errorf("%s: suggest not implemented: %w", f.Name(), ErrPermanent)
	}
	return f.SuggestFunc(ctx, id, req)
}

func (f *FuncProvider) assessQuality(ctx context.Context, id *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	if f.AssessQualityFunc == nil {
		return 0, Usage{}, fmt.Errorf("%s: assessQuality not implemented: %w", f.Name(), ErrPermanent)
	}
	return f.AssessQualityFunc(ctx, id, req, d)
}

// Call is one provider call as an Observer sees it, after it returned.
type Call struct {
	Operation string
	// Identity is a copy of what the provider received (nil when none).
	Identity *identity.Identity
	// Chat is the request of a chat call.
	Chat ChatRequest
	// Request is the (anonymized) request of a suggest or assessQuality call.
	Request DiagnosisRequest
	// Assessed is the diagnosis an assessQuality call scored.
	Assessed Diagnosis

	ChatResponse ChatResponse
	// Diagnosis is what a suggest call returned.
	Diagnosis Diagnosis
	// Confidence is what an assessQuality call returned.
	Confidence float64
	Usage      Usage
	Err        error
}

// Observer is told about every call made through a provider wrapped by Observe.
type Observer interface {
	ObserveCall(c Call)
}

// Observe returns p wrapped so that o sees every call after it returns. The observer only
// receives results: it cannot make a call, so the wrapped provider is still reachable only
// through Governed.
func Observe(p Provider, o Observer) Provider { return &observed{inner: p, obs: o} }

type observed struct {
	inner Provider
	obs   Observer
}

func (o *observed) Name() string { return o.inner.Name() }

func (o *observed) chat(ctx context.Context, id *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	resp, u, err := o.inner.chat(ctx, id, req)
	o.obs.ObserveCall(Call{Operation: OpChat, Identity: copyIdentity(id), Chat: copyChat(req),
		ChatResponse: resp, Usage: u, Err: err})
	return resp, u, err
}

func (o *observed) suggest(ctx context.Context, id *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	d, u, err := o.inner.suggest(ctx, id, req)
	o.obs.ObserveCall(Call{Operation: OpSuggest, Identity: copyIdentity(id), Request: copyRequest(req),
		Diagnosis: cloneDiagnosis(d), Usage: u, Err: err})
	return d, u, err
}

func (o *observed) assessQuality(ctx context.Context, id *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	c, u, err := o.inner.assessQuality(ctx, id, req, d)
	o.obs.ObserveCall(Call{Operation: OpAssessQuality, Identity: copyIdentity(id), Request: copyRequest(req),
		Assessed: cloneDiagnosis(d), Confidence: c, Usage: u, Err: err})
	return c, u, err
}

func copyIdentity(id *identity.Identity) *identity.Identity {
	if id == nil {
		return nil
	}
	c := *id
	c.Roles = slices.Clone(id.Roles)
	return &c
}

func copyChat(r ChatRequest) ChatRequest {
	return ChatRequest{Messages: slices.Clone(r.Messages)}
}

func copyRequest(r DiagnosisRequest) DiagnosisRequest {
	r.Payload = slices.Clone(r.Payload)
	r.Context = slices.Clone(r.Context)
	return r
}
