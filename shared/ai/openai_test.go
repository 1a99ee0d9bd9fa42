package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

func TestOpenAIWireFormat(t *testing.T) {
	srv := aitest.NewModelServer(diagnosisThenConfidence(false, modelDiagnosis))
	defer srv.Close()
	h := aitest.NewHarness(newOpenAI(t, srv, 0))

	d, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_claim1", sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if d.Class != ai.ClassValue || d.Retryable || d.Confidence != 0.82 {
		t.Errorf("diagnosis %+v", d)
	}
	if len(d.Fix) != 1 || d.Fix[0].Path != "shipcountry" || d.Fix[0].Before != "Deutschland" || d.Fix[0].After != "DE" {
		t.Errorf("fix %+v", d.Fix)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want suggest and assessQuality", len(reqs))
	}
	for i, r := range reqs {
		if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
			t.Errorf("request %d: %s %s", i, r.Method, r.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testAPIKey {
			t.Errorf("request %d: Authorization %q", i, got)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d: Content-Type %q", i, ct)
		}
		body := decodeJSON(t, r.Body)
		if body["model"] != openAIModel {
			t.Errorf("request %d: model %v", i, body["model"])
		}
		if temp, ok := body["temperature"]; !ok || temp != 0.0 {
			t.Errorf("request %d: temperature %v (present %v), want an explicit 0", i, temp, ok)
		}
		if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_object" {
			t.Errorf("request %d: response_format %v", i, body["response_format"])
		}
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 2 {
			t.Fatalf("request %d: %d messages", i, len(msgs))
		}
		sys, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
		if sys["role"] != "system" || user["role"] != "user" {
			t.Errorf("request %d: roles %v, %v", i, sys["role"], user["role"])
		}
		if !strings.Contains(sys["content"].(string), "JSON") {
			t.Errorf("request %d: the system prompt does not ask for JSON (OpenAI's JSON mode requires it)", i)
		}
		prompt := decodeJSON(t, []byte(user["content"].(string)))
		if i == 0 && prompt["message"] != sampleRequest().Message {
			t.Errorf("suggest prompt %v", prompt)
		}
		if tr := h.Traces.Traces()[0]; i == 0 && string(tr.Prompt) != user["content"].(string) {
			t.Errorf("the trace's prompt\n%s\nis not what was sent\n%s", tr.Prompt, user["content"])
		}
		if i == 1 {
			diag, _ := prompt["diagnosis"].(map[string]any)
			if diag["class"] != "value" || diag["confidence"] != nil {
				t.Errorf("assessQuality prompt shows %v, want the diagnosis without a confidence", diag)
			}
		}
	}

	costs := h.Costs.Costs()
	if len(costs) != 2 || costs[0].Operation != ai.OpSuggest || costs[1].Operation != ai.OpAssessQuality {
		t.Fatalf("costs %+v", costs)
	}
	for _, c := range costs {
		want := 1200.0/1000*0.00015 + 150.0/1000*0.0006
		if !c.Priced || c.Model != openAIModel || c.InputTokens != 1200 || c.OutputTokens != 150 || math.Abs(c.CostUSD-want) > 1e-12 {
			t.Errorf("cost %+v, want priced %v USD", c, want)
		}
	}
}

func TestOpenAIChatWireFormat(t *testing.T) {
	srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
		return aitest.OpenAIReply("Retry after the rate limit window.", 40, 9)
	})
	defer srv.Close()
	h := aitest.NewHarness(newOpenAI(t, srv, 0))
	resp, err := h.Governed.Chat(context.Background(), operatorID(), "chat-1", ai.ChatRequest{Messages: []ai.ChatMessage{
		{Role: ai.RoleSystem, Content: "You help operators."}, {Role: ai.RoleUser, Content: "What does SSS_REQUEST_LIMIT_EXCEEDED mean?"},
	}})
	if err != nil || resp.Content != "Retry after the rate limit window." {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	body := decodeJSON(t, srv.Requests()[0].Body)
	if _, ok := body["response_format"]; ok {
		t.Error("chat asked for JSON mode")
	}
	if msgs := body["messages"].([]any); len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "What does SSS_REQUEST_LIMIT_EXCEEDED mean?" {
		t.Errorf("messages %v", msgs)
	}
}

// errorCase is one way a model server fails and how Diagnose must report it.
type errorCase struct {
	name     string
	reply    func(n int) aitest.Reply
	want     error
	requests int // requests the server sees in total
	costs    int // cost records (calls the model answered are billed even when unusable)
	// ctxTimout is the caller's deadline, counted from the model server's receipt of the
	// request: counted from the call, a loaded machine spent it before the request was sent.
	ctxTimout time.Duration
}

func TestOpenAIErrors(t *testing.T) {
	ok := func(n int) aitest.Reply {
		if n == 0 {
			return aitest.OpenAIReply(modelDiagnosis, 100, 20)
		}
		return aitest.OpenAIReply(`{"confidence":0.8}`, 100, 20)
	}
	cases := []errorCase{
		{name: "400 bad request", reply: func(int) aitest.Reply { return aitest.OpenAIError(400, "Invalid 'messages'") }, want: ai.ErrPermanent, requests: 1},
		{name: "401 bad key", reply: func(int) aitest.Reply { return aitest.OpenAIError(401, "Incorrect API key provided") }, want: ai.ErrPermanent, requests: 1},
		{name: "403 forbidden", reply: func(int) aitest.Reply { return aitest.OpenAIError(403, "Project does not have access to model") }, want: ai.ErrPermanent, requests: 1},
		{name: "429 twice", reply: func(int) aitest.Reply { return aitest.OpenAIError(429, "Rate limit reached") }, want: ai.ErrTransient, requests: 2},
		{name: "429 with a long Retry-After", reply: func(int) aitest.Reply {
			r := aitest.OpenAIError(429, "Rate limit reached")
			r.Header["Retry-After"] = "20"
			return r
		}, want: ai.ErrTransient, requests: 1},
		{name: "500 twice", reply: func(int) aitest.Reply { return aitest.OpenAIError(500, "The server had an error") }, want: ai.ErrTransient, requests: 2},
		{name: "503 twice", reply: func(int) aitest.Reply {
			return aitest.Reply{Status: 503, Body: "<html>upstream unavailable</html>"}
		}, want: ai.ErrTransient, requests: 2},
		{name: "503 then recovers", reply: func(n int) aitest.Reply {
			if n == 0 {
				return aitest.OpenAIError(503, "overloaded")
			}
			return ok(n - 1)
		}, want: nil, requests: 3, costs: 2},
		{name: "malformed body", reply: func(int) aitest.Reply { return aitest.Reply{Body: `{"choices": [`} }, want: ai.ErrPermanent, requests: 1},
		{name: "no choices", reply: func(int) aitest.Reply { return aitest.Reply{Body: `{"choices":[],"usage":{"prompt_tokens":5}}`} }, want: ai.ErrPermanent, requests: 1, costs: 1},
		{name: "content not JSON", reply: func(int) aitest.Reply { return aitest.OpenAIReply("The country is wrong.", 100, 20) }, want: ai.ErrPermanent, requests: 1, costs: 1},
		{name: "unknown class", reply: func(int) aitest.Reply {
			return aitest.OpenAIReply(`{"class":"typo","summary":"s","fix":[],"rationale":"r"}`, 100, 20)
		}, want: ai.ErrPermanent, requests: 1, costs: 1},
		{name: "confidence not a number", reply: func(n int) aitest.Reply {
			if n == 0 {
				return ok(0)
			}
			return aitest.OpenAIReply(`{"confidence":"high"}`, 100, 20)
		}, want: ai.ErrPermanent, requests: 2, costs: 2},
		{name: "timeout", reply: func(int) aitest.Reply { return aitest.Reply{Delay: 5 * time.Second} }, want: ai.ErrTransient, requests: 1, ctxTimout: 150 * time.Millisecond},
	}
	runErrorCases(t, cases, func(t *testing.T, srv *aitest.ModelServer) ai.Provider { return newOpenAI(t, srv, 0) })
}

func runErrorCases(t *testing.T, cases []errorCase, provider func(*testing.T, *aitest.ModelServer) ai.Provider) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := newArrivalDeadline(t, tc.ctxTimout)
			srv := aitest.NewModelServer(func(n int, _ aitest.RecordedRequest) aitest.Reply {
				ctx.arrive()
				return tc.reply(n)
			})
			defer srv.Close()
			runErrorCase(t, tc, srv, provider(t, srv), ctx)
		})
	}
}

func runErrorCase(t *testing.T, tc errorCase, srv *aitest.ModelServer, p ai.Provider, ctx *arrivalDeadline) {
	t.Helper()
	h := aitest.NewHarness(p)
	d, err := h.Governed.Diagnose(ctx, operatorID(), "inf-err", "se_claim", sampleRequest())
	elapsed := ctx.sinceArrival()
	if tc.want == nil {
		if err != nil {
			t.Fatalf("err %v", err)
		}
	} else {
		if !errors.Is(err, tc.want) {
			t.Fatalf("err %v, want %v", err, tc.want)
		}
		other := ai.ErrPermanent
		if tc.want == ai.ErrPermanent {
			other = ai.ErrTransient
		}
		if errors.Is(err, other) {
			t.Errorf("err %v is both transient and permanent", err)
		}
		if d.Class != "" || d.Fix != nil {
			t.Errorf("a failed Diagnose returned %+v", d)
		}
	}
	if tc.ctxTimout > 0 && elapsed > tc.ctxTimout+time.Second {
		t.Errorf("took %v with a %v deadline", elapsed, tc.ctxTimout)
	}
	if n := len(srv.Requests()); n != tc.requests {
		t.Errorf("%d requests, want %d", n, tc.requests)
	}
	if n := len(h.Costs.Costs()); n != tc.costs {
		t.Errorf("%d cost records, want %d: %+v", n, tc.costs, h.Costs.Costs())
	}
	traces := h.Traces.Traces()
	if len(traces) != 1 {
		t.Fatalf("%d traces, want 1 even on failure", len(traces))
	}
	events := h.Audit.EventsWithKey(ai.ActionKeyInference)
	if len(events) != 1 {
		t.Fatalf("%d ai.inference events", len(events))
	}
	if tc.want != nil {
		if traces[0].Error == "" || events[0].Result != ai.ResultFailure {
			t.Errorf("trace error %q, audit result %q", traces[0].Error, events[0].Result)
		}
		wantKind := "permanent"
		if tc.want == ai.ErrTransient {
			wantKind = "transient"
		}
		if events[0].Details["error"] != wantKind {
			t.Errorf("audit error kind %v, want %s", events[0].Details["error"], wantKind)
		}
	} else if events[0].Result != ai.ResultSuccess {
		t.Errorf("audit result %q", events[0].Result)
	}
}

func TestOpenAIModelAnswerInCodeFence(t *testing.T) {
	srv := aitest.NewModelServer(diagnosisThenConfidence(false, "Here is the diagnosis:\n```json\n"+modelDiagnosis+"\n```"))
	defer srv.Close()
	h := aitest.NewHarness(newOpenAI(t, srv, 0))
	d, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest())
	if err != nil || d.Class != ai.ClassValue {
		t.Fatalf("d %+v err %v", d, err)
	}
}

func TestOpenAIWithoutKeySendsNoAuthorization(t *testing.T) {
	srv := aitest.NewModelServer(diagnosisThenConfidence(false, modelDiagnosis))
	defer srv.Close()
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{Name: "openai", OpenAIBaseURL: srv.URL + "/v1/", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	h := aitest.NewHarness(p)
	if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest()); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "" {
		t.Errorf("path %s, Authorization %q", r.Path, r.Header.Get("Authorization"))
	}
	var body struct{ Model string }
	_ = json.Unmarshal(r.Body, &body)
	if body.Model != ai.DefaultOpenAIModel {
		t.Errorf("model %q, want the default", body.Model)
	}
}
