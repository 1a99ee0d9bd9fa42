package aitest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/identity"
)

func TestScannerReplacesCanariesInValuesAndKeys(t *testing.T) {
	s := NewScanner(Canary{"4111 1111 1111 1111", "CARD_NUMBER"}, Canary{"jane@example.com", "EMAIL"}, Canary{"bob@example.com", "EMAIL"})
	doc := `{"message":"card 4111 1111 1111 1111 of jane@example.com","payload":{"jane@example.com":{"cc":"4111 1111 1111 1111","cc2":"4111 1111 1111 1111"},"other":"bob@example.com","n":12.50}}`
	out, counts, err := s.Anonymize(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, "4111") || strings.Contains(got, "example.com") {
		t.Fatalf("canary left in %s", got)
	}
	for _, want := range []string{"[CARD_NUMBER_1]", "[EMAIL_1]", "[EMAIL_2]", `"n":12.50`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if counts["CARD_NUMBER"] != 3 || counts["EMAIL"] != 3 {
		t.Errorf("counts %v", counts)
	}
	if len(s.Docs()) != 1 || string(s.Docs()[0]) != doc {
		t.Error("the scanned document was not recorded as given")
	}
}

func TestScannerFailsClosed(t *testing.T) {
	s := NewScanner()
	if _, _, err := s.Anonymize(context.Background(), []byte(`[1]`)); err == nil {
		t.Error("a non-object was anonymized")
	}
	s.FailWith(errors.New("down"))
	if out, _, err := s.Anonymize(context.Background(), []byte(`{}`)); err == nil || out != nil {
		t.Error("FailWith did not fail")
	}
}

func TestStoresCopyAndAreIdempotent(t *testing.T) {
	ctx := context.Background()
	ts := NewTraceStore()
	id := identity.Identity{TenantID: "t1", Actor: "u", Roles: []string{"operator"}}
	tr := ai.Trace{TenantID: "t1", InferenceID: "i1", Operation: ai.OpDiagnose, Identity: id, Prompt: json.RawMessage(`{"a":1}`),
		DLPFindings: map[string]int{"EMAIL": 1}, Steps: []ai.TraceStep{{Operation: ai.OpSuggest}}}
	if err := ts.PutTrace(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.Prompt[2] = 'X'
	tr.Identity.Roles[0] = "admin"
	got := ts.Traces()
	got[0].DLPFindings["EMAIL"] = 9
	got[0].Steps[0].Operation = "changed"
	again, ok := ts.Trace("t1", "i1", ai.OpDiagnose)
	if !ok || string(again.Prompt) != `{"a":1}` || again.Identity.Roles[0] != "operator" || again.DLPFindings["EMAIL"] != 1 || again.Steps[0].Operation != ai.OpSuggest {
		t.Errorf("the store shares memory with its callers: %+v", again)
	}
	_ = ts.PutTrace(ctx, ai.Trace{TenantID: "t1", InferenceID: "i1", Operation: ai.OpDiagnose, Error: "second"})
	if all := ts.Traces(); len(all) != 1 || all[0].Error != "second" {
		t.Errorf("put is not idempotent on its key: %+v", all)
	}

	cs := NewCostStore()
	_ = cs.PutCost(ctx, ai.CostRecord{TenantID: "t1", InferenceID: "i1", Operation: ai.OpSuggest, CostUSD: 1})
	_ = cs.PutCost(ctx, ai.CostRecord{TenantID: "t1", InferenceID: "i1", Operation: ai.OpSuggest, CostUSD: 2})
	_ = cs.PutCost(ctx, ai.CostRecord{TenantID: "t1", InferenceID: "i1", Operation: ai.OpAssessQuality, CostUSD: 3})
	if c := cs.Costs(); len(c) != 2 || c[0].CostUSD != 1 { // the first record stands, as in DynamoDB
		t.Errorf("costs %+v", c)
	}

	a := NewAuditor()
	details := map[string]any{"findings": map[string]int{"EMAIL": 1}}
	_ = a.Audit(ctx, ai.AuditEvent{ActionKey: ai.ActionKeyDLPScan, Details: details})
	details["findings"].(map[string]int)["EMAIL"] = 5
	if e := a.EventsWithKey(ai.ActionKeyDLPScan); len(e) != 1 || e[0].Details["findings"].(map[string]any)["EMAIL"] != 1.0 {
		t.Errorf("events %+v", e)
	}
	a.FailWith(errors.New("throttled"))
	if err := a.Audit(ctx, ai.AuditEvent{}); err == nil {
		t.Error("FailWith did not fail")
	}
}

func TestHarnessRecordsGovernedCallsOnly(t *testing.T) {
	h := NewHarness(nil)
	id := identity.ForTenant("t1", "test")
	req := ai.DiagnosisRequest{RecordType: "salesOrder", RecordID: "SO-1", ErrorCode: "SSS_REQUEST_LIMIT_EXCEEDED", Message: "Request limit exceeded."}
	d, err := h.Governed.Diagnose(context.Background(), id, "i1", "c1", req)
	if err != nil || d.Class != ai.ClassRateLimit || !d.Retryable {
		t.Fatalf("%+v %v", d, err)
	}
	calls := h.Provider.Calls()
	if len(calls) != 2 || len(h.Provider.Requests()) != 1 || h.Provider.Requests()[0].Message != req.Message {
		t.Errorf("calls %+v", calls)
	}
}

func TestScriptedAndFailingProviders(t *testing.T) {
	id := identity.ForTenant("t1", "test")
	req := ai.DiagnosisRequest{RecordType: "x", Message: "y", Payload: json.RawMessage(`{"a":"b"}`)}
	h := NewHarness(NewScriptedProvider(ai.Diagnosis{Class: ai.ClassValue, Summary: "s", Fix: []ai.FieldChange{{Path: "a", After: "c"}}}, 0.6, ai.Usage{Model: "scripted"}))
	d, err := h.Governed.Diagnose(context.Background(), id, "i1", "", req)
	if err != nil || d.Confidence != 0.6 || len(d.Fix) != 1 || d.Fix[0].Before != "b" {
		t.Fatalf("%+v %v", d, err)
	}
	boom := errors.New("boom")
	h = NewHarness(NewFailingProvider(boom))
	if _, err := h.Governed.Diagnose(context.Background(), id, "i1", "", req); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}
