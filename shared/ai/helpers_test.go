package ai_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/identity"
)

const (
	openAIModel  = "gpt-4o-mini"
	bedrockModel = "anthropic.claude-3-5-haiku-20241022-v1:0"
	testAPIKey   = "sk-test-not-a-real-key"
)

// operatorID is an operator of tenant t1, as identity.Derive makes it from a JWT.
func operatorID() identity.Identity {
	id, _ := identity.Derive(&identity.Principal{Subject: "user-42", TenantID: "t1", Roles: []string{identity.RoleOperator}}, nil)
	return id
}

// sampleRequest is the record syncerrortest.SampleRecord describes, as the worker will
// hand it to Diagnose.
func sampleRequest() ai.DiagnosisRequest {
	return ai.DiagnosisRequest{
		RecordType: "salesOrder", RecordID: "SO-10042", ErrorCode: "INVALID_FIELD_VALUE",
		Message:     "Invalid value for field shipcountry: 'Deutschland'",
		Integration: "shopify-orders", ExternalSystem: "shopify", Direction: "inbound",
		Payload: json.RawMessage(`{"shipcountry":"Deutschland","total":129.5}`),
		Context: json.RawMessage(`{"script":"ue_sync_error"}`),
	}
}

// modelDiagnosis is what a well-behaved model answers for sampleRequest.
const modelDiagnosis = `{"class":"value","retryable":false,"summary":"shipcountry holds a country name, not an ISO code.","fix":[{"path":"shipcountry","before":"Deutschland","after":"DE"}],"rationale":"NetSuite expects ISO 3166-1 alpha-2 codes; Deutschland is Germany, DE."}`

// diagnosisThenConfidence answers the suggest request with answer and every later one
// with a confidence, in the OpenAI or the Bedrock format.
func diagnosisThenConfidence(bedrock bool, answer string) func(int, aitest.RecordedRequest) aitest.Reply {
	return func(n int, _ aitest.RecordedRequest) aitest.Reply {
		content := answer
		if n > 0 {
			content = `{"confidence":0.82}`
		}
		if bedrock {
			return aitest.BedrockReply(content, 1200, 150)
		}
		return aitest.OpenAIReply(content, 1200, 150)
	}
}

func newOpenAI(t *testing.T, srv *aitest.ModelServer, timeout time.Duration) ai.Provider {
	t.Helper()
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{
		Name: ai.ProviderOpenAI, Model: openAIModel, OpenAIBaseURL: srv.URL + "/v1", OpenAIAPIKey: testAPIKey,
		HTTPClient: srv.Client(), Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newBedrock(t *testing.T, srv *aitest.ModelServer, timeout time.Duration) ai.Provider {
	t.Helper()
	cfg := aws.Config{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLETESTONLY", SecretAccessKey: "test-secret-not-real"}, nil
		}),
	}
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{
		Name: ai.ProviderBedrock, Model: bedrockModel, AWSConfig: &cfg, HTTPClient: srv.Client(), Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decodeJSON(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	return m
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
