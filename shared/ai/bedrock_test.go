package ai_test

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
)

func TestBedrockWireFormat(t *testing.T) {
	srv := aitest.NewModelServer(diagnosisThenConfidence(true, modelDiagnosis))
	defer srv.Close()
	h := aitest.NewHarness(newBedrock(t, srv, 0))

	d, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_claim1", sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if d.Class != ai.ClassValue || d.Confidence != 0.82 || len(d.Fix) != 1 || d.Fix[0].After != "DE" {
		t.Errorf("diagnosis %+v", d)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want suggest and assessQuality", len(reqs))
	}
	// The SDK escapes the model id as a path segment, ':' included (RFC 3986 strict).
	wantPath := "/model/" + strings.ReplaceAll(url.PathEscape(bedrockModel), ":", "%3A") + "/converse"
	for i, r := range reqs {
		if r.Method != http.MethodPost || r.Path != wantPath {
			t.Errorf("request %d: %s %s, want POST %s", i, r.Method, r.Path, wantPath)
		}
		if a := r.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY/") ||
			!strings.Contains(a, "/us-east-1/bedrock/aws4_request") {
			t.Errorf("request %d: Authorization %q is not a SigV4 signature for bedrock", i, a)
		}
		body := decodeJSON(t, r.Body)
		ic, _ := body["inferenceConfig"].(map[string]any)
		if temp, ok := ic["temperature"]; !ok || temp != 0.0 || ic["maxTokens"] != 2048.0 {
			t.Errorf("request %d: inferenceConfig %v", i, ic)
		}
		sys, _ := body["system"].([]any)
		if len(sys) != 1 || !strings.Contains(sys[0].(map[string]any)["text"].(string), "JSON") {
			t.Errorf("request %d: system %v", i, sys)
		}
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("request %d: messages %v", i, msgs)
		}
		m := msgs[0].(map[string]any)
		content, _ := m["content"].([]any)
		if m["role"] != "user" || len(content) != 1 {
			t.Fatalf("request %d: message %v", i, m)
		}
		prompt := decodeJSON(t, []byte(content[0].(map[string]any)["text"].(string)))
		if i == 0 && prompt["recordId"] != "SO-10042" {
			t.Errorf("suggest prompt %v", prompt)
		}
	}
	costs := h.Costs.Costs()
	if len(costs) != 2 {
		t.Fatalf("costs %+v", costs)
	}
	want := 1200.0/1000*0.0008 + 150.0/1000*0.004
	for _, c := range costs {
		if !c.Priced || c.Model != bedrockModel || c.Provider != ai.ProviderBedrock || c.InputTokens != 1200 || math.Abs(c.CostUSD-want) > 1e-12 {
			t.Errorf("cost %+v, want %v USD", c, want)
		}
	}
	tr := h.Traces.Traces()[0]
	if tr.Provider != ai.ProviderBedrock || tr.Model != bedrockModel || len(tr.Steps) != 2 || tr.Steps[0].InputTokens != 1200 {
		t.Errorf("trace %+v", tr)
	}
}

func TestBedrockChatWireFormat(t *testing.T) {
	srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
		return aitest.BedrockReply("Check the item's status in the ERP.", 30, 8)
	})
	defer srv.Close()
	h := aitest.NewHarness(newBedrock(t, srv, 0))
	resp, err := h.Governed.Chat(context.Background(), operatorID(), "chat-1", ai.ChatRequest{Messages: []ai.ChatMessage{
		{Role: ai.RoleSystem, Content: "You help operators."},
		{Role: ai.RoleUser, Content: "Why is SO-10220 failing?"},
	}})
	if err != nil || resp.Content != "Check the item's status in the ERP." {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	body := decodeJSON(t, srv.Requests()[0].Body)
	if sys := body["system"].([]any); len(sys) != 1 || sys[0].(map[string]any)["text"] != "You help operators." {
		t.Errorf("system %v", sys)
	}
	if msgs := body["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" {
		t.Errorf("messages %v", msgs)
	}
}

func TestBedrockErrors(t *testing.T) {
	bedrockErr := func(status int, typ string) func(int) aitest.Reply {
		return func(int) aitest.Reply { return aitest.BedrockError(status, typ, typ+" from the test server") }
	}
	cases := []errorCase{
		{name: "throttling", reply: bedrockErr(429, "ThrottlingException"), want: ai.ErrTransient, requests: 2},
		{name: "service unavailable", reply: bedrockErr(503, "ServiceUnavailableException"), want: ai.ErrTransient, requests: 2},
		{name: "internal server error", reply: bedrockErr(500, "InternalServerException"), want: ai.ErrTransient, requests: 2},
		// The SDK does not retry a model timeout itself; the queue will.
		{name: "model timeout", reply: bedrockErr(408, "ModelTimeoutException"), want: ai.ErrTransient, requests: 1},
		{name: "validation", reply: bedrockErr(400, "ValidationException"), want: ai.ErrPermanent, requests: 1},
		{name: "access denied", reply: bedrockErr(403, "AccessDeniedException"), want: ai.ErrPermanent, requests: 1},
		{name: "model not found", reply: bedrockErr(404, "ResourceNotFoundException"), want: ai.ErrPermanent, requests: 1},
		{name: "throttled then recovers", reply: func(n int) aitest.Reply {
			if n == 0 {
				return aitest.BedrockError(429, "ThrottlingException", "slow down")
			}
			if n == 1 {
				return aitest.BedrockReply(modelDiagnosis, 100, 20)
			}
			return aitest.BedrockReply(`{"confidence":0.9}`, 100, 20)
		}, want: nil, requests: 3, costs: 2},
		{name: "malformed body", reply: func(int) aitest.Reply {
			return aitest.Reply{Header: map[string]string{"Content-Type": "application/json"}, Body: `{"output": {"message": `}
		}, want: ai.ErrPermanent, requests: 1},
		{name: "answer not JSON", reply: func(int) aitest.Reply { return aitest.BedrockReply("It is a country problem.", 100, 20) },
			want: ai.ErrPermanent, requests: 1, costs: 1},
		{name: "answer cut at max tokens", reply: func(int) aitest.Reply {
			r := aitest.BedrockReply(`{"class":"value","summ`, 100, 2048)
			r.Body = strings.Replace(r.Body, `"end_turn"`, `"max_tokens"`, 1)
			return r
		}, want: ai.ErrPermanent, requests: 1, costs: 1},
		{name: "timeout", reply: func(int) aitest.Reply { return aitest.Reply{Delay: 5 * time.Second} }, want: ai.ErrTransient, requests: 1, ctxTimout: 150 * time.Millisecond},
	}
	runErrorCases(t, cases, func(t *testing.T, srv *aitest.ModelServer) ai.Provider { return newBedrock(t, srv, 0) })
}
