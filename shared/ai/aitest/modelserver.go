package aitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// RecordedRequest is one request a ModelServer received, body exactly as sent.
type RecordedRequest struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Reply is what a ModelServer answers.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
	// Delay holds the answer back, for timeout tests; a client that gives up ends it.
	Delay time.Duration
}

// ModelServer is an httptest server standing in for a model endpoint. reply decides each
// answer from the request's position (0-based) and content; the wire format is the
// reply's (see OpenAIReply, BedrockReply and their error forms).
type ModelServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []RecordedRequest
}

// NewModelServer starts a server; Close it when done.
func NewModelServer(reply func(n int, r RecordedRequest) Reply) *ModelServer {
	s := &ModelServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := RecordedRequest{Method: r.Method, Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: body}
		s.mu.Lock()
		n := len(s.requests)
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		rp := reply(n, rec)
		if rp.Delay > 0 {
			select {
			case <-time.After(rp.Delay):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range rp.Header {
			w.Header().Set(k, v)
		}
		if rp.Status == 0 {
			rp.Status = http.StatusOK
		}
		w.WriteHeader(rp.Status)
		_, _ = io.WriteString(w, rp.Body)
	}))
	return s
}

// Requests returns the requests so far.
func (s *ModelServer) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = bytes.Clone(r.Body)
		out[i] = r
	}
	return out
}

// Bodies returns the request bodies so far, concatenated, for "was X ever sent" checks.
func (s *ModelServer) Bodies() []byte {
	var b bytes.Buffer
	for _, r := range s.Requests() {
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func mustJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// OpenAIReply is a chat completion whose message content is content.
func OpenAIReply(content string, promptTokens, completionTokens int) Reply {
	return Reply{Header: map[string]string{"Content-Type": "application/json"}, Body: mustJSON(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1795000000, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{
			"prompt_tokens": promptTokens, "completion_tokens": completionTokens,
			"total_tokens": promptTokens + completionTokens,
		},
	})}
}

// OpenAIError is an OpenAI error response.
func OpenAIError(status int, message string) Reply {
	return Reply{Status: status, Header: map[string]string{"Content-Type": "application/json"},
		Body: mustJSON(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error"}})}
}

// BedrockReply is a Converse response whose message text is text.
func BedrockReply(text string, inputTokens, outputTokens int) Reply {
	return Reply{Header: map[string]string{"Content-Type": "application/json"}, Body: mustJSON(map[string]any{
		"output": map[string]any{"message": map[string]any{
			"role": "assistant", "content": []any{map[string]any{"text": text}},
		}},
		"stopReason": "end_turn",
		"usage":      map[string]any{"inputTokens": inputTokens, "outputTokens": outputTokens, "totalTokens": inputTokens + outputTokens},
		"metrics":    map[string]any{"latencyMs": 412},
	})}
}

// BedrockError is a Bedrock error response of the given exception type
// ("ThrottlingException", "ValidationException", ...), as the REST-JSON protocol sends it.
func BedrockError(status int, errorType, message string) Reply {
	return Reply{Status: status, Header: map[string]string{
		"Content-Type":     "application/json",
		"X-Amzn-ErrorType": errorType,
		"X-Amzn-RequestId": fmt.Sprintf("req-%d-%s", status, errorType),
	}, Body: mustJSON(map[string]any{"message": message})}
}
