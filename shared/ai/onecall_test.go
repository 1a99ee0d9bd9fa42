package ai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/identity"
)

// A model diagnoses in one call: its answer carries its confidence, so no assessQuality
// call follows; the prompt carries the catalogue entries of the error's own systems for
// its codes, not the catalogues.
func TestModelDiagnosisIsOneCallWithTheCatalogueExcerpt(t *testing.T) {
	srv := aitest.NewModelServer(func(int, aitest.RecordedRequest) aitest.Reply {
		return aitest.OpenAIReply(`{"class":"rate_limit","retryable":true,"summary":"s","fix":[],"rationale":"r","confidence":0.85}`, 900, 120)
	})
	defer srv.Close()
	p, err := ai.NewProvider(context.Background(), ai.ProviderConfig{Name: ai.ProviderOpenAI, Model: "m", OpenAIBaseURL: srv.URL + "/v1", OpenAIAPIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	costs := aitest.NewCostStore()
	g := ai.NewGoverned(p, aitest.NewScanner(), aitest.NewTraceStore(), costs, aitest.NewAuditor())
	d, err := g.Diagnose(context.Background(), identity.ForTenant("t1", "test"), "inf-1", "c1", ai.DiagnosisRequest{
		RecordType: "account", RecordID: "A-1", ErrorCode: "REQUEST_LIMIT_EXCEEDED", Message: "TotalRequests Limit exceeded.",
		ExternalSystem: "crm", ExternalVendor: "Salesforce", HostSystem: "NetSuite", Direction: "outbound"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || d.Confidence != 0.85 || d.Class != ai.ClassRateLimit {
		t.Fatalf("%d calls, diagnosis %+v: want one call whose answer's confidence stands", len(reqs), d)
	}
	var body struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Messages) != 2 {
		t.Fatalf("request %s", reqs[0].Body)
	}
	var user struct {
		ErrorCode string              `json:"errorCode"`
		Catalogue []ai.CatalogueEntry `json:"catalogue"`
	}
	if err := json.Unmarshal([]byte(body.Messages[1].Content), &user); err != nil {
		t.Fatal(err)
	}
	if len(user.Catalogue) != 1 || user.Catalogue[0].Vendor != "Salesforce" || user.Catalogue[0].Code != "REQUEST_LIMIT_EXCEEDED" ||
		user.Catalogue[0].Class != ai.ClassRateLimit || user.Catalogue[0].Source == "" {
		t.Fatalf("catalogue excerpt %+v: want Salesforce's REQUEST_LIMIT_EXCEEDED alone", user.Catalogue)
	}
	if n := len(costs.Costs()); n != 1 {
		t.Fatalf("%d cost records, want the one call's", n)
	}
}
