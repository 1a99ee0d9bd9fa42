package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The model's share counts one call per error the rules are unsure of, and none for the
// errors they are sure of.
func TestModelShareCountsOnlyTheErrorsTheRulesAreUnsureOf(t *testing.T) {
	dir := t.TempDir()
	corpus := `{"use":"test","cases":[
	 {"name":"sure","request":{"recordType":"account","recordId":"A-1","errorCode":"REQUEST_LIMIT_EXCEEDED","message":"TotalRequests Limit exceeded.","externalSystem":"crm","externalVendor":"Salesforce","direction":"outbound"},"expect":{"class":"rate_limit"}},
	 {"name":"unsure","request":{"recordType":"salesOrder","recordId":"SO-1","errorCode":"","message":"The operation could not be completed","externalSystem":"crm","direction":"outbound"},"expect":{"class":"value"}}]}`
	if err := os.WriteFile(filepath.Join(dir, "diagnoser_x.json"), []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := measureModelShare(filepath.Join(dir, "diagnoser_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.asked != 1 || m.total != 2 || m.inTokens < 500 {
		t.Fatalf("asked %d of %d, %.0f input tokens: want the unsure one alone, with the system prompt's tokens", m.asked, m.total, m.inTokens)
	}
	one := aiWhatIf("amazon.nova-micro-v1:0", m.inTokens, m.outTokens, 1)
	if got := m.perMillion("amazon.nova-micro-v1:0"); math.Abs(got-one/2) > 1e-9 || got <= 0 {
		t.Fatalf("per million %.4f, want half of one call per error (%.4f)", got, one/2)
	}
}

// On the committed corpora the gate keeps the model's share within the goal: at most
// $60 per million end to end needs the model's line well under the infrastructure's.
func TestModelShareOnTheDemoMix(t *testing.T) {
	m, err := measureModelShare("../../shared/ai/testdata/diagnoser_*.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.total < 500 || m.rate() <= 0 || m.rate() > 0.5 {
		t.Fatalf("asked %d of %d", m.asked, m.total)
	}
	t.Logf("model asked for %d of %d (%.1f %%), %.0f input tokens, nova-micro $%.2f per million",
		m.asked, m.total, 100*m.rate(), m.inTokens, m.perMillion("amazon.nova-micro-v1:0"))
}
