package aidiagnoser

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
)

type tenantsFunc func(id string) (tenant.Config, error)

func (f tenantsFunc) Get(_ context.Context, id string) (tenant.Config, error) { return f(id) }

// gateFixture is the diagnoser over an OpenAI-compatible model server that counts its
// requests, for a tenant whose settings are settings.
func gateFixture(t *testing.T, settings map[string]string) (governedDiagnoser, *aitest.ModelServer) {
	t.Helper()
	srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
		return aitest.OpenAIReply(`{"class":"value","retryable":false,"summary":"s","fix":[],"rationale":"r","confidence":0.8}`, 1500, 300)
	})
	t.Cleanup(srv.Close)
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{Name: ai.ProviderOpenAI, Model: "m", OpenAIBaseURL: srv.URL + "/v1", OpenAIAPIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	g := ai.NewGoverned(p, aitest.NewScanner(), aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor())
	tenants := tenantsFunc(func(id string) (tenant.Config, error) { return tenant.Config{ID: id, Settings: settings}, nil })
	return newDiagnoser(&aiclient.Client{Governed: g, Provider: ai.ProviderOpenAI, Model: "m"}, tenants, time.Now), srv
}

func claimOf(code, msg string) syncerror.Claim {
	return syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
		ErrorCode: code, Message: msg, ExternalSystem: "crm", Direction: "outbound",
		Payload: []byte(`{"email":"x"}`)}, syncerror.SourceWebhook, "wh-1", time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
}

// The rules are sure of this one (Salesforce's REQUEST_LIMIT_EXCEEDED is its API quota by
// the vendor's reference) and sure of nothing in the other.
var (
	confident = claimOf("REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.")
	unsure    = claimOf("", "The operation could not be completed")
)

// A diagnosis the rules are confident of calls no model.
func TestConfidentRulesCallNoModel(t *testing.T) {
	d, srv := gateFixture(t, nil)
	p, err := d.Diagnose(context.Background(), confident, "inf-1")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model calls for a diagnosis the rules scored %.2f", n, p.Confidence)
	}
	if p.Provider != ai.ProviderRules || p.Model != ai.RulesModel || p.Class != "rate_limit" || p.Confidence < ai.DefaultModelBelow {
		t.Fatalf("proposal %+v: want the rules' rate_limit", p)
	}
}

// Below the threshold the model is asked once: the diagnosis and its confidence in one
// answer, with the vendor catalogue's excerpt for the error's codes.
func TestUnsureRulesCallTheModelOnce(t *testing.T) {
	d, srv := gateFixture(t, nil)
	p, err := d.Diagnose(context.Background(), unsure, "inf-2")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model calls, want exactly one", n)
	}
	if p.Provider != ai.ProviderOpenAI || p.Class != "value" || p.Confidence != 0.8 {
		t.Fatalf("proposal %+v: want the model's, with the confidence it gave", p)
	}
}

// The tenant's threshold decides: 1 asks the model even where the rules are sure; 0 never.
func TestTheTenantSetsTheThreshold(t *testing.T) {
	d, srv := gateFixture(t, map[string]string{tenant.KeyModelBelow: "1"})
	if _, err := d.Diagnose(context.Background(), confident, "inf-3"); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("threshold 1: %d model calls, want one", n)
	}
	d, srv = gateFixture(t, map[string]string{tenant.KeyModelBelow: "0"})
	p, err := d.Diagnose(context.Background(), unsure, "inf-4")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 || p.Provider != ai.ProviderRules {
		t.Fatalf("threshold 0: %d model calls, proposal by %s", n, p.Provider)
	}
}

// A model asked after the rules has an inference of its own, so its tokens are counted and
// its trace kept beside the rules' (under the rules' id its cost record found theirs, and
// the first record of an inference's operation stands).
func TestTheModelAfterTheRulesIsCountedAsItsOwnInference(t *testing.T) {
	srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
		return aitest.OpenAIReply(`{"class":"value","retryable":false,"summary":"s","fix":[],"rationale":"r","confidence":0.8}`, 1500, 300)
	})
	t.Cleanup(srv.Close)
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{Name: ai.ProviderOpenAI, Model: "m", OpenAIBaseURL: srv.URL + "/v1", OpenAIAPIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	costs := aitest.NewCostStore()
	g := ai.NewGoverned(p, aitest.NewScanner(), aitest.NewTraceStore(), costs, aitest.NewAuditor())
	d := newDiagnoser(&aiclient.Client{Governed: g, Provider: ai.ProviderOpenAI, Model: "m"}, nil, time.Now)
	prop, err := d.Diagnose(context.Background(), unsure, "inf-5")
	if err != nil {
		t.Fatal(err)
	}
	if prop.InferenceID != "inf-5"+ModelInference || prop.Provider != ai.ProviderOpenAI {
		t.Fatalf("the model's proposal names inference %q by %s", prop.InferenceID, prop.Provider)
	}
	var modelTokens int
	for _, c := range costs.Costs() {
		if c.Provider == ai.ProviderOpenAI {
			modelTokens += c.InputTokens
		}
	}
	if modelTokens != 1500 {
		t.Fatalf("the model's input tokens counted %d times over the records %+v, want the 1500 it reported", modelTokens, costs.Costs())
	}
}
