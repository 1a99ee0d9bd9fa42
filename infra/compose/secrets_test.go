package compose_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
)

// askTheModel has the demo tenant ask the model whatever the rules' confidence: a test of
// the model's path must not depend on the rules being unsure of its fixture.
func askTheModel(t *testing.T, e *env) {
	t.Helper()
	if err := (tenant.Admin{Store: e.deps.Tenants}).Set(context.Background(), "demo", tenant.KeyModelBelow, "1"); err != nil {
		t.Fatal(err)
	}
}

// In AWS the OpenAI-compatible provider's key comes from Secrets Manager (an httptest server
// speaking its JSON protocol stands in), read once at start, and reaches the provider as the
// bearer token.
func TestOpenAIKeyFromSecretsManager(t *testing.T) {
	const arn = "arn:aws:secretsmanager:eu-central-1:123456789012:secret:openai-key-AbCdEf"
	var reads atomic.Int32
	secrets := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct{ SecretId string }
		_ = json.Unmarshal(body, &in)
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || in.SecretId != arn {
			http.Error(w, `{"__type":"ResourceNotFoundException"}`, http.StatusBadRequest)
			return
		}
		reads.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_, _ = io.WriteString(w, `{"ARN":"`+arn+`","Name":"openai-key","SecretString":"sk-from-the-secret"}`)
	}))
	defer secrets.Close()
	model := aitest.NewModelServer(func(n int, _ aitest.RecordedRequest) aitest.Reply {
		if n%2 == 1 {
			return aitest.OpenAIReply(`{"confidence":0.7}`, 10, 5)
		}
		return aitest.OpenAIReply(`{"class":"value","retryable":false,"summary":"s","fix":[],"rationale":"r"}`, 10, 5)
	})
	defer model.Close()
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", secrets.URL)
	t.Setenv("AI_PROVIDER", "openai")
	t.Setenv("AI_MODEL", "gpt-4o-mini")
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY_SECRET_ARN", arn)
	e := newEnv(t, sqsqueue.CreateOptions{})
	askTheModel(t, e)
	if reads.Load() != 1 {
		t.Fatalf("secret read %d times at start, want once", reads.Load())
	}
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	if resp, _ := ingestLambda(t, e)(context.Background(), in); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ingest: %d", resp.StatusCode)
	}
	id := fixtureRowID(t)
	if resp, err := e.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m", Body: `{"tenantId":"demo","id":"` + id + `"}`}}}); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker: %+v %v", resp, err)
	}
	reqs := model.Requests()
	if len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer sk-from-the-secret" {
		t.Fatalf("provider requests %d, first Authorization %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
}
