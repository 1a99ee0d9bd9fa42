package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
)

// openAIProvider speaks the OpenAI chat-completions API, which OpenAI and most local
// model servers (llama.cpp, vLLM, Ollama, LM Studio) implement.
type openAIProvider struct {
	base, key, model string
	client           *http.Client
	timeout          time.Duration
}

// retryWait is the pause before the one retry of a throttled or failed request;
// longer waits are the queue's job.
const retryWait = 300 * time.Millisecond

// maxResponseBytes bounds what is read from a model server.
const maxResponseBytes = 4 << 20

func (p *openAIProvider) Name() string { return ProviderOpenAI }

func (p *openAIProvider) chat(ctx context.Context, _ *identity.Identity, req ChatRequest) (ChatResponse, Usage, error) {
	content, u, err := p.complete(ctx, req.Messages, false)
	if err != nil {
		return ChatResponse{}, u, err
	}
	return ChatResponse{Content: content}, u, nil
}

func (p *openAIProvider) suggest(ctx context.Context, _ *identity.Identity, req DiagnosisRequest) (Diagnosis, Usage, error) {
	user, err := suggestUserPrompt(req)
	if err != nil {
		return Diagnosis{}, Usage{Model: p.model}, fmt.Errorf("openai: %v: %w", err, ErrPermanent)
	}
	content, u, err := p.complete(ctx, []ChatMessage{{RoleSystem, suggestSystemPrompt}, {RoleUser, user}}, true)
	if err != nil {
		return Diagnosis{}, u, err
	}
	d, err := parseSuggestion(content)
	if err != nil {
		return Diagnosis{}, u, fmt.Errorf("openai: %w", err)
	}
	return d, selfAssessed(u, content), nil
}

func (p *openAIProvider) assessQuality(ctx context.Context, _ *identity.Identity, req DiagnosisRequest, d Diagnosis) (float64, Usage, error) {
	user, err := assessUserPrompt(req, d)
	if err != nil {
		return 0, Usage{Model: p.model}, fmt.Errorf("openai: %v: %w", err, ErrPermanent)
	}
	content, u, err := p.complete(ctx, []ChatMessage{{RoleSystem, assessSystemPrompt}, {RoleUser, user}}, true)
	if err != nil {
		return 0, u, err
	}
	c, err := parseConfidence(content)
	if err != nil {
		return 0, u, fmt.Errorf("openai: %w", err)
	}
	return c, u, nil
}

type openAIRequest struct {
	Model          string         `json:"model"`
	Messages       []ChatMessage  `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat *openAIRespFmt `json:"response_format,omitempty"`
}

type openAIRespFmt struct {
	Type string `json:"type"`
}

type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// complete sends one chat completion, retrying once on throttling, a 5xx or a transport
// failure when the deadline leaves room for it; what still fails is ErrTransient.
func (p *openAIProvider) complete(ctx context.Context, msgs []ChatMessage, jsonMode bool) (string, Usage, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	body := openAIRequest{Model: p.model, Messages: msgs, Temperature: 0}
	if jsonMode {
		body.ResponseFormat = &openAIRespFmt{Type: "json_object"}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", Usage{Model: p.model}, fmt.Errorf("openai: encode request: %v: %w", err, ErrPermanent)
	}
	return withOneRetry(ctx, func() (string, Usage, time.Duration, error) { return p.send(ctx, raw) })
}

// withOneRetry runs send, and once more after a pause when it failed with a wait that is
// not negative (throttling, a 5xx, a transport failure) and the deadline leaves room for
// it; what still fails is returned as send said it.
func withOneRetry(ctx context.Context, send func() (string, Usage, time.Duration, error)) (string, Usage, error) {
	for attempt := 0; ; attempt++ {
		content, u, wait, err := send()
		if err == nil || wait < 0 || attempt == 1 || ctx.Err() != nil {
			return content, u, err
		}
		wait = max(wait, retryWait)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait+time.Second {
			return content, u, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return content, u, err
		case <-t.C:
		}
	}
}

// send makes one request. wait is how long to pause before a retry (0: the default), or
// negative when the failure is not worth retrying.
func (p *openAIProvider) send(ctx context.Context, body []byte) (string, Usage, time.Duration, error) {
	u := Usage{Model: p.model}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", u, -1, fmt.Errorf("openai: build request: %v: %w", err, ErrPermanent)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		// Timeouts, resets, refused connections: the request may succeed later.
		return "", u, 0, fmt.Errorf("openai: %w: %w", transportError(err), ErrTransient)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return "", u, 0, fmt.Errorf("openai: read response: %w: %w", transportError(err), ErrTransient)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return "", u, retryAfter(resp.Header.Get("Retry-After")),
			fmt.Errorf("openai: status %d: %s: %w", resp.StatusCode, errorText(data), ErrTransient)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return "", u, -1, fmt.Errorf("openai: status %d: %s: %w", resp.StatusCode, errorText(data), ErrPermanent)
	}
	var out openAIResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return "", u, -1, fmt.Errorf("openai: response is not a chat completion: %w", ErrPermanent)
	}
	u.InputTokens, u.OutputTokens = out.Usage.PromptTokens, out.Usage.CompletionTokens
	if len(out.Choices) == 0 {
		return "", u, -1, fmt.Errorf("openai: response has no choices: %w", ErrPermanent)
	}
	return out.Choices[0].Message.Content, u, 0, nil
}

// transportError keeps a context's cause and drops the URL the http client adds, which
// adds nothing and would repeat the endpoint in every trace.
func transportError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return context.Canceled
	}
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// retryAfter honours a short Retry-After in seconds; a longer one means no retry here,
// since the queue waits better than a running function (-1).
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	switch {
	case err != nil || n < 0:
		return 0
	case n > 2:
		return -1
	}
	return time.Duration(n) * time.Second
}

// errorText is the provider's error message, shortened to one line.
func errorText(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		msg = e.Error.Message
		if msg == "" {
			msg = e.Message
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = "no error message"
	}
	return msg
}
