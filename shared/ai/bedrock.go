package ai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/syncassist/syncassist/shared/identity"
)

// bedrockMaxTokens bounds a diagnosis answer; a few hundred tokens is typical.
const bedrockMaxTokens = 2048

// bedrockProvider calls a model through Amazon Bedrock's Converse API, which gives every
// model family one request and response shape:
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
//
// It speaks the API over net/http with the SDK's SigV4 signer rather than through the
// bedrockruntime client: Converse is one REST-JSON call, and the client's generated
// types (every content block, guardrail and stream shape) weighed 0.4 MB in each
// function that calls a model.
type bedrockProvider struct {
	client   *http.Client
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	region   string
	endpoint string
	model    string
	timeout  time.Duration
}

func newBedrockProvider(cfg aws.Config, model string, hc *http.Client, timeout time.Duration) *bedrockProvider {
	if hc == nil {
		hc = &http.Client{}
	}
	endpoint := "https://bedrock-runtime." + cfg.Region + ".amazonaws.com"
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		endpoint = strings.TrimRight(*cfg.BaseEndpoint, "/")
	}
	return &bedrockProvider{client: hc, creds: cfg.Credentials, signer: v4.NewSigner(), region: cfg.Region,
		endpoint: endpoint, model: model, timeout: timeout}
}

func (p *bedrockProvider) Name() string { return ProviderBedrock }

// converseMessage and its blocks are the Converse request's and response's message shape;
// only text blocks are sent or read.
type converseMessage struct {
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

type textBlock struct {
	Text *string `json:"text,omitempty"`
}

type converseRequest struct {
	Messages        []converseMessage `json:"messages"`
	System          []textBlock       `json:"system,omitempty"`
	InferenceConfig struct {
		Temperature float64 `json:"temperature"`
		MaxTokens   int     `json:"maxTokens"`
	} `json:"inferenceConfig"`
}

type converseResponse struct {
	Output struct {
		Message *converseMessage `json:"message"`
	} `json:"output"`
	StopReason string `json:"stopReason"`
	Usage      struct {
		InputTokens  int `json:"inputTokens"`
		OutputTokens int `json:"outputTokens"`
	} `json:"usage"`
}

func text(s string) []textBlock { return []textBlock{{Text: &s}} }

func (p *bedrockProvider) chat(ctx context.Context, _ *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	var system []string
	var turns []converseMessage
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
		case RoleAssistant:
			turns = append(turns, converseMessage{Role: "assistant", Content: text(m.Content)})
		default:
			turns = append(turns, converseMessage{Role: "user", Content: text(m.Content)})
		}
	}
	out, u, err := p.converse(ctx, system, turns)
	if err != nil {
		return ChatResponse{}, u, err
	}
	return ChatResponse{Content: out}, u, nil
}

func (p *bedrockProvider) suggest(ctx context.Context, _ *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	user, err := suggestUserPrompt(req)
	if err != nil {
		return Diagnosis{}, Usage{Model: p.model}, fmt.Errorf("bedrock: %v: %w", err, ErrPermanent)
	}
	out, u, err := p.converse(ctx, []string{suggestSystemPrompt}, []converseMessage{{Role: "user", Content: text(user)}})
	if err != nil {
		return Diagnosis{}, u, err
	}
	d, err := parseSuggestion(out)
	if err != nil {
		return Diagnosis{}, u, fmt.Errorf("bedrock: %w", err)
	}
	return d, selfAssessed(u, out), nil
}

func (p *bedrockProvider) assessQuality(ctx context.Context, _ *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	user, err := assessUserPrompt(req, d)
	if err != nil {
		return 0, Usage{Model: p.model}, fmt.Errorf("bedrock: %v: %w", err, ErrPermanent)
	}
	out, u, err := p.converse(ctx, []string{assessSystemPrompt}, []converseMessage{{Role: "user", Content: text(user)}})
	if err != nil {
		return 0, u, err
	}
	c, err := parseConfidence(out)
	if err != nil {
		return 0, u, fmt.Errorf("bedrock: %w", err)
	}
	return c, u, nil
}

func (p *bedrockProvider) converse(ctx context.Context, system []string, msgs []converseMessage) (string, Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	in := converseRequest{Messages: msgs}
	in.InferenceConfig.MaxTokens = bedrockMaxTokens
	for _, s := range system {
		in.System = append(in.System, text(s)...)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return "", Usage{Model: p.model}, fmt.Errorf("bedrock: encode request: %v: %w", err, ErrPermanent)
	}
	return withOneRetry(ctx, func() (string, Usage, time.Duration, error) { return p.send(ctx, body) })
}

// send makes one signed Converse request; wait is as for withOneRetry.
func (p *bedrockProvider) send(ctx context.Context, body []byte) (string, Usage, time.Duration, error) {
	u := Usage{Model: p.model}
	req, err := p.request(ctx, body)
	if err != nil {
		return "", u, -1, fmt.Errorf("bedrock: %v: %w", err, ErrPermanent)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return "", u, 0, fmt.Errorf("bedrock: %w: %w", transportError(err), ErrTransient)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return "", u, 0, fmt.Errorf("bedrock: read response: %w: %w", transportError(err), ErrTransient)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := bedrockError(resp, data)
		if !e.retriable() {
			return "", u, -1, e
		}
		return "", u, retryAfter(resp.Header.Get("Retry-After")), e
	}
	return p.answer(data)
}

// request builds the Converse request for body and signs it (SigV4, service "bedrock").
// The model id is one path segment, escaped strictly (":" too), as the SDK sends it.
func (p *bedrockProvider) request(ctx context.Context, body []byte) (*http.Request, error) {
	seg := strings.ReplaceAll(url.PathEscape(p.model), ":", "%3A")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint+"/model/"+seg+"/converse", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if p.creds == nil {
		return nil, fmt.Errorf("no AWS credentials")
	}
	creds, err := p.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := p.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "bedrock", p.region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign request: %w", err)
	}
	return req, nil
}

// answer reads a Converse response: the message's first text block and the token usage.
func (p *bedrockProvider) answer(data []byte) (string, Usage, time.Duration, error) {
	u := Usage{Model: p.model}
	var out converseResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return "", u, -1, fmt.Errorf("bedrock: the response is not a Converse response: %w", ErrPermanent)
	}
	u.InputTokens, u.OutputTokens = out.Usage.InputTokens, out.Usage.OutputTokens
	switch out.StopReason {
	case "guardrail_intervened", "content_filtered":
		return "", u, -1, fmt.Errorf("bedrock: the model's answer was filtered (%s): %w", out.StopReason, ErrPermanent)
	case "max_tokens":
		return "", u, -1, fmt.Errorf("bedrock: the model's answer was cut at %d tokens: %w", bedrockMaxTokens, ErrPermanent)
	}
	if out.Output.Message == nil {
		return "", u, -1, fmt.Errorf("bedrock: the response holds no message: %w", ErrPermanent)
	}
	for _, b := range out.Output.Message.Content {
		if b.Text != nil {
			return *b.Text, u, 0, nil
		}
	}
	return "", u, -1, fmt.Errorf("bedrock: the response message has no text: %w", ErrPermanent)
}

// bedrockTransient are the exceptions a later attempt may get past.
var bedrockTransient = map[string]bool{
	"ThrottlingException": true, "ServiceUnavailableException": true, "InternalServerException": true,
	"ModelNotReadyException": true, "ServiceQuotaExceededException": true, "ModelTimeoutException": true,
}

// bedrockError classifies an error response by its exception type (the X-Amzn-ErrorType
// header of the REST-JSON protocol, or the body's __type), falling back on the status.
func bedrockError(resp *http.Response, data []byte) *bedrockAPIError {
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(data, &body)
	typ := resp.Header.Get("X-Amzn-ErrorType")
	if typ == "" {
		typ = body.Type
	}
	typ, _, _ = strings.Cut(typ, ":")
	if i := strings.LastIndexByte(typ, '#'); i >= 0 {
		typ = typ[i+1:]
	}
	kind := ErrPermanent
	if bedrockTransient[typ] || typ == "" && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		kind = ErrTransient
	}
	return &bedrockAPIError{status: resp.StatusCode, typ: typ, message: errorText(data), kind: kind}
}

// bedrockAPIError is an error answer of the service, kept whole for the trace.
type bedrockAPIError struct {
	status  int
	typ     string
	message string
	kind    error
}

func (e *bedrockAPIError) Error() string {
	return fmt.Sprintf("bedrock: status %d %s: %s: %v", e.status, e.typ, e.message, e.kind)
}

func (e *bedrockAPIError) Unwrap() error { return e.kind }

// retriable: a throttled or failing service may answer the next attempt. A model timeout
// is transient but not retried here: it has used the time a retry would need, and the
// queue retries.
func (e *bedrockAPIError) retriable() bool {
	return e.kind == ErrTransient && e.typ != "ModelTimeoutException"
}
