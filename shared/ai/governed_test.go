package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
)

func TestDiagnoseRecordsTraceCostAndAudit(t *testing.T) {
	h := aitest.NewHarness(nil)
	clock := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	h.Governed = h.Governed.WithClock(func() time.Time { clock = clock.Add(10 * time.Millisecond); return clock })
	id := operatorID()

	d, err := h.Governed.Diagnose(context.Background(), id, "inf-1", "se_claim1", sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if d.Class != ai.ClassValue || len(d.Fix) != 1 || d.Fix[0].Path != "shipcountry" || d.Fix[0].After != "DE" {
		t.Fatalf("diagnosis %+v", d)
	}
	if d.Confidence < 0.8 {
		t.Errorf("confidence %v for a table-determined fix", d.Confidence)
	}

	calls := h.Provider.Calls()
	if len(calls) != 2 || calls[0].Operation != ai.OpSuggest || calls[1].Operation != ai.OpAssessQuality {
		t.Fatalf("calls %+v", calls)
	}
	for _, c := range calls {
		if c.Identity == nil || !reflect.DeepEqual(*c.Identity, id) {
			t.Errorf("%s got identity %+v, want %+v", c.Operation, c.Identity, id)
		}
	}
	if calls[1].Assessed.Class != d.Class || len(calls[1].Assessed.Fix) != 1 {
		t.Errorf("assessQuality scored %+v, not the suggestion", calls[1].Assessed)
	}

	traces := h.Traces.Traces()
	if len(traces) != 1 {
		t.Fatalf("%d traces", len(traces))
	}
	tr := traces[0]
	if tr.TenantID != "t1" || !reflect.DeepEqual(tr.Identity, id) || tr.InferenceID != "inf-1" || tr.ClaimID != "se_claim1" ||
		tr.Operation != ai.OpDiagnose || tr.Provider != "rules" || tr.Model != ai.RulesModel || tr.Error != "" {
		t.Errorf("trace %+v", tr)
	}
	if len(tr.Steps) != 2 || tr.Steps[0].Operation != ai.OpSuggest || tr.Steps[1].Operation != ai.OpAssessQuality ||
		tr.Steps[0].Duration != 10*time.Millisecond || !tr.StartedAt.Equal(time.Date(2026, 11, 22, 9, 30, 0, 10e6, time.UTC)) {
		t.Errorf("steps %+v started %v", tr.Steps, tr.StartedAt)
	}
	var prompt ai.DiagnosisRequest
	if err := json.Unmarshal(tr.Prompt, &prompt); err != nil || prompt.Message != sampleRequest().Message {
		t.Errorf("trace prompt %s: %v", tr.Prompt, err)
	}
	var stored ai.Diagnosis
	if err := json.Unmarshal(tr.Response, &stored); err != nil || stored.Confidence != d.Confidence || stored.Fix[0].After != "DE" {
		t.Errorf("trace response %s: %v", tr.Response, err)
	}

	costs := h.Costs.Costs()
	if len(costs) != 2 {
		t.Fatalf("%d cost records, want one per provider call", len(costs))
	}
	for _, c := range costs {
		if c.TenantID != "t1" || !reflect.DeepEqual(c.Identity, id) || c.InferenceID != "inf-1" || c.Model != ai.RulesModel ||
			!c.Priced || c.CostUSD != 0 || c.Provider != "rules" {
			t.Errorf("cost %+v", c)
		}
	}

	events := h.Audit.Events()
	if len(events) != 1 {
		t.Fatalf("events %+v, want only ai.inference (the scan found nothing)", events)
	}
	e := events[0]
	if e.ActionType != ai.ActionTypeAI || e.ActionKey != ai.ActionKeyInference || e.Result != ai.ResultSuccess ||
		e.Resource != "syncerror/se_claim1" || !reflect.DeepEqual(e.Identity, id) {
		t.Errorf("event %+v", e)
	}
	for k, want := range map[string]any{"inferenceId": "inf-1", "class": "value", "provider": "rules", "model": ai.RulesModel, "priced": true, "steps": 2.0} {
		if e.Details[k] != want {
			t.Errorf("details[%s] = %v, want %v", k, e.Details[k], want)
		}
	}
}

func TestDiagnoseRefusesUnattributedIdentity(t *testing.T) {
	for name, id := range map[string]identity.Identity{
		"zero":          {},
		"actor only":    {Actor: "system", Source: identity.SourceTenant},
		"roles, no tid": {Actor: "user-1", Roles: []string{identity.RoleAdmin}, Source: identity.SourceAuth},
	} {
		t.Run(name, func(t *testing.T) {
			h := aitest.NewHarness(nil)
			_, err := h.Governed.Diagnose(context.Background(), id, "inf-1", "se_1", sampleRequest())
			if !errors.Is(err, ai.ErrNoAttribution) {
				t.Fatalf("err %v, want ErrNoAttribution", err)
			}
			_, err = h.Governed.Chat(context.Background(), id, "inf-2", ai.ChatRequest{Messages: []ai.ChatMessage{{Role: "user", Content: "hi"}}})
			if !errors.Is(err, ai.ErrNoAttribution) {
				t.Fatalf("chat err %v, want ErrNoAttribution", err)
			}
			if n := len(h.Provider.Calls()); n != 0 {
				t.Errorf("provider called %d times", n)
			}
			if n := len(h.Scanner.Docs()); n != 0 {
				t.Errorf("scanner saw %d documents", n)
			}
			if len(h.Traces.Traces())+len(h.Costs.Costs())+len(h.Audit.Events()) != 0 {
				t.Error("something was recorded for an unattributed call")
			}
		})
	}
}

func TestDiagnoseWithBackgroundIdentity(t *testing.T) {
	h := aitest.NewHarness(nil)
	id := identity.ForTenant("t9", "webhook:msg_2Vx")
	if _, err := h.Governed.Diagnose(context.Background(), id, "inf-1", "se_1", sampleRequest()); err != nil {
		t.Fatal(err)
	}
	if tr := h.Traces.Traces()[0]; tr.TenantID != "t9" || tr.Identity.Actor != "webhook:msg_2Vx" || tr.Identity.Source != identity.SourceTenant {
		t.Errorf("trace attributed to %+v", tr.Identity)
	}
}

func TestScannerFailureSendsNothing(t *testing.T) {
	srv := aitest.NewModelServer(diagnosisThenConfidence(false, modelDiagnosis))
	defer srv.Close()
	h := aitest.NewHarness(newOpenAI(t, srv, 0))
	h.Scanner.FailWith(errors.New("detector crashed on 4111 1111 1111 1111"))

	_, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_1", sampleRequest())
	if !errors.Is(err, ai.ErrScanRefused) {
		t.Fatalf("err %v, want ErrScanRefused", err)
	}
	_, err = h.Governed.Chat(context.Background(), operatorID(), "inf-2", ai.ChatRequest{Messages: []ai.ChatMessage{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, ai.ErrScanRefused) {
		t.Fatalf("chat err %v, want ErrScanRefused", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the model server got %d requests", n)
	}
	if n := len(h.Provider.Calls()); n != 0 {
		t.Fatalf("provider called %d times", n)
	}
	tr, ok := h.Traces.Trace("t1", "inf-1", ai.OpDiagnose)
	if !ok || tr.Prompt != nil || tr.Error == "" || strings.Contains(tr.Error, "4111") {
		t.Errorf("trace %+v: want a failure with no prompt and no scanner text", tr)
	}
	ev := h.Audit.EventsWithKey(ai.ActionKeyInference)
	if len(ev) != 2 || ev[0].Result != ai.ResultFailure || ev[0].Details["reason"] != "dlp_refused" {
		t.Errorf("events %+v", ev)
	}
	if len(h.Costs.Costs()) != 0 {
		t.Error("a refused inference has a cost")
	}
}

// scannerFunc adapts a function to ai.PromptScanner.
type scannerFunc func(ctx context.Context, doc []byte) ([]byte, map[string]int, error)

func (f scannerFunc) Anonymize(ctx context.Context, doc []byte) ([]byte, map[string]int, error) {
	return f(ctx, doc)
}

func (scannerFunc) RedactText(_ context.Context, text string) (string, error) {
	return dlp.NewScanner().RedactString(dlp.Record, text)
}

func TestScannerOutputThatIsNotARequestSendsNothing(t *testing.T) {
	for name, out := range map[string]string{
		"not JSON":       `{"message": "unterminated`,
		"array":          `[1, 2]`,
		"unknown field":  `{"message": "x", "extra": "what is this"}`,
		"payload string": `{"message": "x", "payload": "[REDACTED]"}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := aitest.NewRecordingProvider(nil)
			traces, costs, audit := aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor()
			g := ai.NewGoverned(rec, scannerFunc(func(context.Context, []byte) ([]byte, map[string]int, error) {
				return []byte(out), nil, nil
			}), traces, costs, audit)
			_, err := g.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest())
			if !errors.Is(err, ai.ErrScanRefused) {
				t.Fatalf("err %v, want ErrScanRefused", err)
			}
			if len(rec.Calls()) != 0 {
				t.Fatal("provider called")
			}
			if tr := traces.Traces(); len(tr) != 1 || tr[0].Prompt != nil {
				t.Errorf("trace %+v", tr)
			}
		})
	}
}

func TestMissingDependencyFailsClosed(t *testing.T) {
	rec := aitest.NewRecordingProvider(nil)
	g := ai.NewGoverned(rec, nil, aitest.NewTraceStore(), aitest.NewCostStore(), aitest.NewAuditor())
	if _, err := g.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest()); !errors.Is(err, ai.ErrPermanent) {
		t.Fatalf("err %v", err)
	}
	if len(rec.Calls()) != 0 {
		t.Fatal("provider called without a scanner")
	}
}

func TestDLPAuditFailureSendsNothing(t *testing.T) {
	h := aitest.NewHarness(nil, aitest.Canaries...)
	h.Audit.FailWith(errors.New("audit table throttled"))
	req := sampleRequest()
	req.Message += " (contact jane.doe@example.com)"
	_, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", req)
	// Transient because nothing could be recorded: the retry will scan and audit again.
	if !errors.Is(err, ai.ErrTransient) {
		t.Fatalf("err %v, want ErrTransient", err)
	}
	if len(h.Provider.Calls()) != 0 {
		t.Fatal("sent although the scan could not be audited")
	}
}

func TestProviderFailureIsRecorded(t *testing.T) {
	boom := fmt.Errorf("upstream 503: %w", ai.ErrTransient)
	h := aitest.NewHarness(aitest.NewFailingProvider(boom))
	_, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_1", sampleRequest())
	if !errors.Is(err, ai.ErrTransient) || errors.Is(err, ai.ErrPermanent) {
		t.Fatalf("err %v", err)
	}
	tr := h.Traces.Traces()
	if len(tr) != 1 || tr[0].Error == "" || len(tr[0].Steps) != 1 || tr[0].Steps[0].Error == "" || tr[0].Prompt == nil {
		t.Errorf("trace %+v", tr)
	}
	if ev := h.Audit.EventsWithKey(ai.ActionKeyInference); len(ev) != 1 || ev[0].Result != ai.ResultFailure || ev[0].Details["error"] != "transient" {
		t.Errorf("events %+v", ev)
	}
	if len(h.Costs.Costs()) != 0 {
		t.Error("a call that used no tokens has a cost record")
	}
}

func TestStoreFailureIsTransient(t *testing.T) {
	for name, fail := range map[string]func(h *aitest.Harness, err error){
		"trace": func(h *aitest.Harness, err error) { h.Traces.FailWith(err) },
		"cost":  func(h *aitest.Harness, err error) { h.Costs.FailWith(err) },
	} {
		t.Run(name, func(t *testing.T) {
			h := aitest.NewHarness(nil)
			fail(h, errors.New("ProvisionedThroughputExceeded"))
			d, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest())
			if !errors.Is(err, ai.ErrTransient) {
				t.Fatalf("err %v, want ErrTransient", err)
			}
			if d.Class != "" {
				t.Error("a diagnosis without its records was returned")
			}
		})
	}
}

func TestSuggestionIsSettled(t *testing.T) {
	req := sampleRequest()
	req.Payload = json.RawMessage(`{"shipCountry":"Deutschland","email":"[EMAIL_1]","total":129.5}`)
	cases := []struct {
		name    string
		d       ai.Diagnosis
		wantErr error
		check   func(t *testing.T, d ai.Diagnosis)
	}{
		{name: "class normalised, retryable from class, before from payload, path spelling from payload",
			d: ai.Diagnosis{Class: " Value ", Retryable: true, Summary: "s", Fix: []ai.FieldChange{{Path: "shipcountry", Before: "Germany", After: "DE"}}},
			check: func(t *testing.T, d ai.Diagnosis) {
				if d.Class != ai.ClassValue || d.Retryable {
					t.Errorf("class %q retryable %v", d.Class, d.Retryable)
				}
				if len(d.Fix) != 1 || d.Fix[0].Path != "shipCountry" || d.Fix[0].Before != "Deutschland" {
					t.Errorf("fix %+v", d.Fix)
				}
			}},
		{name: "transient class drops the fix",
			d: ai.Diagnosis{Class: ai.ClassRateLimit, Fix: []ai.FieldChange{{Path: "total", After: 1}}},
			check: func(t *testing.T, d ai.Diagnosis) {
				if !d.Retryable || len(d.Fix) != 0 || !strings.Contains(d.Rationale, "transient") {
					t.Errorf("%+v", d)
				}
			}},
		{name: "placeholder values, no-ops, repeats and bad paths are withheld",
			d: ai.Diagnosis{Class: ai.ClassValue, Summary: "s", Fix: []ai.FieldChange{
				{Path: "email", After: "[EMAIL_1]"},
				{Path: "notes", After: "call [PHONE_2] first"},
				{Path: "total", After: 129.5},
				{Path: "shipCountry", After: "DE"},
				{Path: "shipCountry", After: "AT"},
				{Path: "items[", After: "x"},
				{Path: "shipcity", After: "Berlin"},
			}},
			check: func(t *testing.T, d ai.Diagnosis) {
				want := []ai.FieldChange{{Path: "shipCountry", Before: "Deutschland", After: "DE"}, {Path: "shipcity", Before: nil, After: "Berlin"}}
				if !reflect.DeepEqual(d.Fix, want) {
					t.Errorf("fix %+v, want %+v", d.Fix, want)
				}
				if !strings.Contains(d.Rationale, "withheld") {
					t.Errorf("rationale %q does not say what was withheld", d.Rationale)
				}
			}},
		{name: "empty summary gets one", d: ai.Diagnosis{Class: ai.ClassParse},
			check: func(t *testing.T, d ai.Diagnosis) {
				if d.Summary == "" || d.Fix == nil {
					t.Errorf("%+v", d)
				}
			}},
		{name: "unknown class", d: ai.Diagnosis{Class: "network"}, wantErr: ai.ErrPermanent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := aitest.NewHarness(aitest.NewScriptedProvider(tc.d, 0.7, ai.Usage{Model: "scripted", InputTokens: 10, OutputTokens: 5}))
			d, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				if c := h.Costs.Costs(); len(c) != 1 || c[0].Priced || c[0].CostUSD != 0 {
					t.Errorf("the billed but unusable call: costs %+v, want one unpriced record", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Confidence != 0.7 {
				t.Errorf("confidence %v", d.Confidence)
			}
			tc.check(t, d)
		})
	}
}

func TestConfidenceOutOfRangeIsPermanent(t *testing.T) {
	for _, c := range []float64{-0.1, 1.5} {
		h := aitest.NewHarness(aitest.NewScriptedProvider(ai.Diagnosis{Class: ai.ClassValue, Summary: "s"}, c, ai.Usage{Model: "scripted"}))
		if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "", sampleRequest()); !errors.Is(err, ai.ErrPermanent) {
			t.Errorf("confidence %v: err %v", c, err)
		}
	}
}

func TestRedeliveryRewritesItsRecords(t *testing.T) {
	h := aitest.NewHarness(nil)
	for i := 0; i < 3; i++ {
		if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "se_1#1", "se_1", sampleRequest()); err != nil {
			t.Fatal(err)
		}
	}
	if n, c := len(h.Traces.Traces()), len(h.Costs.Costs()); n != 1 || c != 2 {
		t.Errorf("%d traces and %d cost records after three deliveries of one attempt, want 1 and 2", n, c)
	}
}

func TestDiagnoseRequiresInferenceID(t *testing.T) {
	h := aitest.NewHarness(nil)
	if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "", "", sampleRequest()); !errors.Is(err, ai.ErrPermanent) {
		t.Fatalf("err %v", err)
	}
	if len(h.Provider.Calls()) != 0 {
		t.Fatal("provider called")
	}
}

func TestRulesChat(t *testing.T) {
	h := aitest.NewHarness(nil)
	req := ai.ChatRequest{Messages: []ai.ChatMessage{{Role: ai.RoleUser, Content: "NetSuite says SSS_REQUEST_LIMIT_EXCEEDED: Request limit exceeded"}}}
	a, err := h.Governed.Chat(context.Background(), operatorID(), "chat-1", req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.Governed.Chat(context.Background(), operatorID(), "chat-2", req)
	if a != b || !strings.Contains(a.Content, "rate_limit") || !strings.Contains(a.Content, "transient") {
		t.Errorf("answers %q and %q", a.Content, b.Content)
	}
	tr, ok := h.Traces.Trace("t1", "chat-1", ai.OpChat)
	if !ok || len(tr.Steps) != 1 || tr.Steps[0].Operation != ai.OpChat {
		t.Errorf("trace %+v", tr)
	}
	if c := h.Costs.Costs(); len(c) != 2 || c[0].Operation != ai.OpChat {
		t.Errorf("costs %+v", c)
	}
}

func TestGovernedIsSafeForConcurrentUse(t *testing.T) {
	h := aitest.NewHarness(nil, aitest.Canaries...)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := identity.ForTenant(fmt.Sprintf("t%d", i%4), "test")
			if _, err := h.Governed.Diagnose(context.Background(), id, fmt.Sprintf("inf-%d", i), "", sampleRequest()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(h.Traces.Traces()); n != 32 {
		t.Errorf("%d traces", n)
	}
}

// ctxStore fails puts whose context is done, as a DynamoDB store does.
type ctxStore struct{ *aitest.TraceStore }

func (s ctxStore) PutTrace(ctx context.Context, t ai.Trace) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.TraceStore.PutTrace(ctx, t)
}

func TestRecordsAreWrittenAfterTheDeadline(t *testing.T) {
	// The deadline passes once the provider has the request (a 20 ms timer could pass
	// before it, on a busy machine).
	ctx := &deadlineOnSignal{Context: context.Background(), done: make(chan struct{})}
	slow := &ai.FuncProvider{ProviderName: "slow", SuggestFunc: func(pctx context.Context, _ *identity.Identity, _ ai.DiagnosisRequest) (ai.Diagnosis, ai.Usage, error) {
		close(ctx.done)
		<-pctx.Done()
		return ai.Diagnosis{}, ai.Usage{}, fmt.Errorf("%w: %w", pctx.Err(), ai.ErrTransient)
	}}
	traces := ctxStore{aitest.NewTraceStore()}
	g := ai.NewGoverned(slow, aitest.NewScanner(), traces, aitest.NewCostStore(), aitest.NewAuditor())
	_, err := g.Diagnose(ctx, operatorID(), "inf-1", "", sampleRequest())
	if !errors.Is(err, ai.ErrTransient) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if tr := traces.Traces(); len(tr) != 1 || tr[0].Error == "" {
		t.Fatalf("traces %+v: the timed-out inference left no trace", tr)
	}
}

// A provider's error text can quote what it was sent (OpenAI's 400s echo the offending
// input): the trace keeps it only after the record policy, in the step and in the trace.
func TestProviderErrorTextIsRedactedBeforeItIsStored(t *testing.T) {
	boom := fmt.Errorf("upstream 400: invalid value 'jane.doe@example.com' for card 4111 1111 1111 1111: %w", ai.ErrPermanent)
	h := aitest.NewHarness(aitest.NewFailingProvider(boom))
	if _, err := h.Governed.Diagnose(context.Background(), operatorID(), "inf-1", "se_1", sampleRequest()); err == nil {
		t.Fatal("want the provider's error")
	}
	tr := h.Traces.Traces()
	if len(tr) != 1 || len(tr[0].Steps) != 1 {
		t.Fatalf("trace %+v", tr)
	}
	for _, text := range []string{tr[0].Error, tr[0].Steps[0].Error} {
		if strings.Contains(text, "jane.doe") || strings.Contains(text, "4111") || !strings.Contains(text, "upstream 400") ||
			!strings.Contains(text, "[REDACTED:EMAIL]") {
			t.Errorf("stored error text %q: want the record policy applied, the rest kept", text)
		}
	}
}

// deadlineOnSignal is a context whose deadline passes when done is closed.
type deadlineOnSignal struct {
	context.Context
	done chan struct{}
}

func (c *deadlineOnSignal) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (c *deadlineOnSignal) Done() <-chan struct{}       { return c.done }
func (c *deadlineOnSignal) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
