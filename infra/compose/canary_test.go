package compose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// syncBuffer collects log output from concurrent goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The canaries of the governed AI tests, plus the forms they take once JSON-encoded.
func canaryForms() []string {
	var out []string
	for _, c := range aitest.Canaries {
		enc, _ := json.Marshal(c.Value)
		out = append(out, c.Value, strings.Trim(string(enc), `"`))
	}
	return append(out, "4111111111111111", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun")
}

// TestCanariesNeverLeaveTheService ingests a sync error carrying a card number, an AWS
// secret key, a PEM private key, an SSN, an email and a JWT in its message and payload,
// diagnoses it through the real DLP scanner with each remote provider's wire format, and
// checks that no canary reached the provider, the trace, the audit log, the proposal, the
// logs, the operator's detail answer or (but for the e-mail, kept for fixes) the stored row.
func TestCanariesNeverLeaveTheService(t *testing.T) {
	suggestion := `{"class":"value","retryable":false,"summary":"[EMAIL_1] on the order is malformed","fix":[{"path":"shipcountry","before":"Deutschland","after":"DE"}],"rationale":"The target wants ISO codes."}`
	for _, provider := range []string{"openai", "bedrock"} {
		t.Run(provider, func(t *testing.T) {
			srv := aitest.NewModelServer(func(n int, _ aitest.RecordedRequest) aitest.Reply {
				content := suggestion
				if n%2 == 1 {
					content = `{"confidence":0.7}`
				}
				if provider == "openai" {
					return aitest.OpenAIReply(content, 120, 40)
				}
				return aitest.BedrockReply(content, 120, 40)
			})
			defer srv.Close()
			t.Setenv("AI_PROVIDER", provider)
			if provider == "openai" {
				t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
				t.Setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
				t.Setenv("AI_MODEL", "gpt-4o-mini")
			} else {
				t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", srv.URL)
				t.Setenv("AI_MODEL", "anthropic.claude-3-5-haiku-20241022-v1:0")
			}
			e := newEnv(t, sqsqueue.CreateOptions{})
			askTheModel(t, e)
			logs := &syncBuffer{}
			e.deps.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			prev := slog.Default()
			slog.SetDefault(e.deps.Log)
			defer slog.SetDefault(prev)

			id := ingestCanaries(t, e)
			resp, err := e.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
				{MessageId: "m1", Body: `{"tenantId":"demo","id":"` + id + `"}`}}})
			if err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("worker: %+v %v\nlogs: %s", resp, err, logs)
			}
			row, err := e.deps.Claims.Get(context.Background(), "demo", id)
			if err != nil || row.Diagnosis != syncerror.DiagnosisReady {
				t.Fatalf("row %+v err=%v\nlogs: %s", row, err, logs)
			}
			if len(srv.Requests()) != 2 {
				t.Fatalf("provider got %d requests, want suggest + assessQuality", len(srv.Requests()))
			}
			if !bytes.Contains(srv.Bodies(), []byte("[EMAIL_1]")) {
				t.Fatalf("provider never saw the anonymized email placeholder: %s", srv.Bodies())
			}
			traces, _ := e.deps.AIRecords.Traces(context.Background(), "demo", id)
			costs, _ := e.deps.AIRecords.Costs(context.Background(), "demo", id)
			page, _ := e.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo",
				From: fixtureTime.Add(-time.Hour), To: fixtureTime.Add(time.Hour), Limit: 100})
			// The rules' inference and the model's own (<attempt>-model): a trace each, and
			// each operation's cost, the model's with the tokens it reported.
			modelCosts := 0
			for _, c := range costs {
				if c.Provider != ai.ProviderRules && c.InputTokens > 0 {
					modelCosts++
				}
			}
			if len(traces) != 2 || len(costs) != 4 || modelCosts != 2 || len(page.Records) < 2 {
				t.Fatalf("traces %d, costs %d (the model's with tokens %d), audit %d", len(traces), len(costs), modelCosts, len(page.Records))
			}
			// What the operator's API answers: the detail masks even the contact data the
			// row keeps, since the fix (shipcountry) does not touch it.
			e.deps.Tokens = identitytest.RoleTokens{}
			mux, err := e.deps.Mux(blueprint.HTTPFunctions())
			if err != nil {
				t.Fatal(err)
			}
			detail := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/api/sync-error-assist/proposals/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+approver)
			mux.ServeHTTP(detail, req)
			if detail.Code != http.StatusOK || !strings.Contains(detail.Body.String(), "Deutschland") {
				t.Fatalf("detail: %d %s", detail.Code, detail.Body)
			}
			// What is kept at rest: no credential, no full card number or SSN. The e-mail
			// stays (a fix may write it), and is checked apart.
			stored := mustJSON(t, row.Record)
			if !bytes.Contains(stored, []byte(aitest.Canaries[4].Value)) {
				t.Errorf("the stored row lost the e-mail a fix may need: %s", stored)
			}
			stored = bytes.ReplaceAll(stored, []byte(aitest.Canaries[4].Value), nil)
			places := map[string][]byte{
				"stored row":        stored,
				"detail answer":     detail.Body.Bytes(),
				"provider requests": srv.Bodies(),
				"trace":             mustJSON(t, traces),
				"cost records":      mustJSON(t, costs),
				"audit log":         mustJSON(t, page.Records),
				"proposal":          mustJSON(t, row.Proposal),
				"logs":              []byte(logs.String()),
			}
			for place, content := range places {
				for _, canary := range canaryForms() {
					if bytes.Contains(content, []byte(canary)) {
						t.Errorf("%s contains the canary %q", place, canary)
					}
				}
			}
			var sawScan bool
			for _, r := range page.Records {
				sawScan = sawScan || r.ActionKey == "dlp.scan"
			}
			if !sawScan {
				t.Error("no dlp.scan audit record for a scan that found six secrets")
			}
		})
	}
}

func ingestCanaries(t *testing.T, e *env) string {
	t.Helper()
	c := aitest.Canaries
	payload := map[string]any{
		"shipcountry": "Deutschland", "cardNumber": c[0].Value, "awsSecretAccessKey": c[1].Value,
		"privateKey": c[2].Value, "ssn": c[3].Value, "email": c[4].Value, "authorization": "Bearer " + c[5].Value,
	}
	body, _ := json.Marshal(map[string]any{
		"tenantId": "demo", "errorId": "ERR-CANARY-1", "recordType": "salesOrder", "recordId": "SO-7",
		"errorCode": "INVALID_FIELD_VALUE", "occurredAt": "2026-11-22T09:58:41Z", "payload": payload,
		"message": "Invalid shipcountry for " + c[4].Value + " card " + c[0].Value + " ssn " + c[3].Value +
			" key " + c[1].Value + " token " + c[5].Value,
	})
	admin := tenant.Admin{Store: e.deps.Tenants}
	secret, err := admin.RotateSecret(context.Background(), "demo", tenant.PurposeIngest, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := webhook.ParseSecret(secret)
	r := httptest.NewRequest(http.MethodPost, blueprint.IngestRoute.Path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(intake.HeaderTenantID, "demo")
	webhook.Sign(key, "msg_canary", fixtureTime, body).Set(r.Header)
	mux, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	if w.Code != http.StatusAccepted {
		t.Fatalf("ingest: %d %s", w.Code, w.Body)
	}
	var res intake.IngestResponse
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res.ID
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
